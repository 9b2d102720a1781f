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
