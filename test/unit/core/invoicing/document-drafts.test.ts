import { describe, expect, it } from "vitest";
import { DEFAULT_INVOICING_POLICY, type InvoicingPolicy } from "../../../../functions/core/base/documents";
import { draftCreditNote, draftInvoice } from "../../../../functions/core/invoicing/document-drafts";
import { attempt, refund, subscription } from "../../../support/billing-repository-contract";

// A credit note credits its invoice: the buyer and the tax rate that invoice was issued with, whatever the customer
// or the merchant's rates have become since.

const AT = new Date("2030-03-01T00:00:00.000Z");
const policy = (percent: string): InvoicingPolicy => ({
  ...DEFAULT_INVOICING_POLICY,
  tax_rates: [{ country: "KR", name: "VAT", percent, inclusive: true }],
});
const korean = subscription("sub-r", {
  customer: {
    name: "Kim Min-ji",
    email: "minji@example.com",
    address: { line1: "1 Sejong-daero", city: "Seoul", country: "KR" },
  },
});
const charge = attempt(
  { subscription_id: "sub-r", period: 1, attempt: 0 },
  { status: "succeeded", amount: "110.00", invoice_number: "INV-2030-000001" },
);

describe("a credit note", () => {
  const invoice = draftInvoice(korean, charge, { policy: policy("10"), on: AT, at: AT }, 1);
  const refunded = refund("re-1", { amount: "55.00", status: "succeeded" });

  it("takes its invoice's buyer and tax rate, though the customer moved and the rate changed since", () => {
    expect(invoice.tax).toEqual([{ name: "VAT", percent: "10", amount: "10.00", inclusive: true }]);
    const moved = {
      ...korean,
      customer: {
        ...korean.customer,
        address: { line1: "1 Unter den Linden", city: "Berlin", country: "DE" },
      },
    };
    const note = draftCreditNote(
      moved,
      refunded,
      charge,
      { policy: policy("12"), on: AT, at: AT },
      1,
      invoice,
    );
    expect(note.buyer).toEqual(invoice.buyer);
    // Half the charge back: half its tax, at the invoice's 10 % (55.00 − 50.00).
    expect(note.tax).toEqual([{ name: "VAT", percent: "10", amount: "5.00", inclusive: true }]);
    expect(note.invoice_number).toBe("INV-2030-000001");
  });

  it("of a charge without an invoice takes the subscription's customer and the merchant's rate now", () => {
    const note = draftCreditNote(korean, refunded, charge, { policy: policy("12"), on: AT, at: AT }, 1);
    expect(note.tax).toEqual([{ name: "VAT", percent: "12", amount: "5.89", inclusive: true }]);
  });
});

describe("a tax added on top (an exclusive rate)", () => {
  const vat = { name: "VAT", percent: "20" };
  const taxed = { ...korean, tax_rate: vat };
  const exclusive: InvoicingPolicy = {
    ...DEFAULT_INVOICING_POLICY,
    tax_rates: [{ country: "KR", name: "VAT", percent: "20", inclusive: false }],
  };
  const issue = { policy: exclusive, on: AT, at: AT };

  it("is a line of its own: the net, the discount, the tax on what is left, and the total charged", () => {
    const line = attempt(
      { subscription_id: "sub-r", period: 1, attempt: 0 },
      {
        status: "succeeded",
        amount: "42.98",
        amount_before_discount: "39.80",
        discount: "3.98",
        tax: { ...vat, amount: "7.16" },
      },
    );
    const invoice = draftInvoice(taxed, line, issue, 1);
    expect(invoice).toMatchObject({
      subtotal: "39.80",
      discount: "3.98",
      tax: [{ name: "VAT", percent: "20", amount: "7.16", inclusive: false }],
      total: "42.98",
    });
    expect(invoice.lines.map((item) => item.amount)).toEqual(["39.80"]);
  });

  it("of an amount given whole (ad hoc, a proration) leaves the net on the line", () => {
    const line = attempt(
      { subscription_id: "sub-r", period: 5000, attempt: 0 },
      { status: "succeeded", amount: "12.00", tax: { ...vat, amount: "2.00" } },
    );
    const invoice = draftInvoice(taxed, line, issue, 1);
    expect(invoice).toMatchObject({ subtotal: "10.00", total: "12.00" });
    expect(invoice.tax).toEqual([{ name: "VAT", percent: "20", amount: "2.00", inclusive: false }]);
  });

  it("is not shown on a charge that was made without it, whatever the merchant's rates are now", () => {
    const invoice = draftInvoice(korean, charge, issue, 1);
    expect(invoice).toMatchObject({ subtotal: "110.00", tax: [], total: "110.00" });
  });

  it("goes back with a refund in the share its invoice had, the credit note's net and tax adding up to the refund", () => {
    const line = attempt(
      { subscription_id: "sub-r", period: 1, attempt: 0 },
      { status: "succeeded", amount: "23.88", tax: { ...vat, amount: "3.98" } },
    );
    const invoice = draftInvoice(taxed, line, issue, 1);
    const note = draftCreditNote(
      taxed,
      refund("re-2", { amount: "10.00", status: "succeeded" }),
      line,
      issue,
      1,
      invoice,
    );
    // 10.00 = 8.33 + 1.67 (20 % of 8.33 is 1.666).
    expect(note).toMatchObject({ subtotal: "8.33", total: "10.00" });
    expect(note.lines.map((item) => item.amount)).toEqual(["8.33"]);
    expect(note.tax).toEqual([{ name: "VAT", percent: "20", amount: "1.67", inclusive: false }]);
  });
});
