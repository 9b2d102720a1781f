import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_INVOICING_POLICY } from "../../../functions/core/base/documents";
import { attemptKeyOf } from "../../../functions/core/base/order-id";
import { renewAfter } from "../../support/billing-scenarios";
import { drainIntake } from "../../support/webhook-receiver";
import { stackWithWebhooks } from "../../support/webhook-stack";

// Exclusive tax rates (README, Invoices): a sign-up whose customer's country has one takes it, and every charge adds
// it on top — the sandbox's sales are the taxed amounts, server to server, in the window, and on a gateway-managed
// plan the gateway charges itself. Each invoice shows the net, the tax and the total charged; a refund's credit note
// gives back the same share of tax; an included rate stays inside the price.

const { stack, call, checkout, payInWindow, container } = stackWithWebhooks({
  policy: {
    invoicing: {
      ...DEFAULT_INVOICING_POLICY,
      tax_rates: [
        { country: "GB", name: "VAT", percent: "20", inclusive: false },
        { country: "KR", name: "VAT", percent: "10", inclusive: true },
      ],
    },
  },
});

const card = { number: "4111111111111111", expiry: "203012", cvc: "123" };
const british = {
  name: "Ada Lovelace",
  email: "ada@example.com",
  address: { line1: "12 St James's Square", city: "London", postal_code: "SW1Y 4JH", country: "GB" },
};

const chargeSchema = z.looseObject({
  charge_id: z.string(),
  kind: z.string(),
  amount: z.string(),
  amount_before_discount: z.string(),
  status: z.string(),
  invoice_number: z.string().optional(),
  tax: z.object({ name: z.string(), percent: z.string(), amount: z.string() }).optional(),
});
const invoiceSchema = z.looseObject({
  subtotal: z.string(),
  discount: z.string(),
  tax: z.string(),
  tax_lines: z.array(z.looseObject({ amount: z.string(), inclusive: z.boolean() })),
  total: z.string(),
  lines: z.array(z.looseObject({ amount: z.string() })),
});

const chargesOf = async (id: string) =>
  z
    .object({ charges: z.array(chargeSchema) })
    .parse((await call("GET", `/v1/subscriptions/${id}/charges`)).json).charges;
const invoiceOf = async (number: string | undefined) =>
  invoiceSchema.parse((await call("GET", `/v1/invoices/${number}`)).json);
const subscriptionOf = async (id: string) =>
  z
    .looseObject({
      status: z.string(),
      tax_rate: z.unknown().optional(),
      next_charge_at: z.string().nullable(),
    })
    .parse((await call("GET", `/v1/subscriptions/${id}`)).json);

/** The sandbox's sales of a subscription's order_ids, as amounts in the order made. */
const salesOf = (id: string) =>
  [...stack().sandbox.state.payments.payments()]
    .filter((payment) => payment.status === "SALE" && attemptKeyOf(payment.orderId)?.subscription_id === id)
    .map((payment) => payment.amount);

const cents = (amount: string) => Math.round(Number(amount) * 100);

/** An invoice's net, discount and added taxes make its total. */
function expectAddsUp(invoice: z.infer<typeof invoiceSchema>) {
  const added = invoice.tax_lines.filter((line) => !line.inclusive).map((line) => cents(line.amount));
  expect(cents(invoice.subtotal) - cents(invoice.discount) + added.reduce((a, b) => a + b, 0)).toBe(
    cents(invoice.total),
  );
}

describe("an exclusive tax rate", () => {
  it("is added on top of every charge of a card sign-up, its renewal, an upgrade's proration and an ad hoc charge", async () => {
    const created = await call("POST", "/v1/subscriptions", {
      body: { customer: british, plan: { amount: "19.90", currency: "USD", interval_months: 1 }, card },
    });
    expect(created.status, created.text).toBe(201);
    const { subscription_id: id } = z.looseObject({ subscription_id: z.string() }).parse(created.json);
    const view = await subscriptionOf(id);
    expect(view.tax_rate).toEqual({ name: "VAT", percent: "20" });

    await renewAfter(stack(), view.next_charge_at);
    const upgraded = await call("POST", `/v1/subscriptions/${id}/adjust`, {
      body: { quantity: 2, proration: "charge_now" },
      idempotencyKey: "tax-upgrade",
    });
    expect(upgraded.status, upgraded.text).toBe(200);
    const adHoc = await call("POST", `/v1/subscriptions/${id}/charges`, {
      body: { amount: "6.00" },
      idempotencyKey: "tax-ad-hoc",
    });
    expect(adHoc.status, adHoc.text).toBe(201);

    const charges = await chargesOf(id);
    const [signup, renewal, proration, oneOff] = charges;
    // 19.90 + 20 % (3.98): the sale the gateway made, twice.
    expect(signup).toMatchObject({
      amount: "23.88",
      amount_before_discount: "19.90",
      tax: { amount: "3.98" },
    });
    expect(renewal).toMatchObject({ amount: "23.88", tax: { name: "VAT", percent: "20", amount: "3.98" } });
    // The proration is priced on the taxed difference; an ad hoc amount is charged as given, its tax within it.
    expect(proration?.tax).toBeDefined();
    expect(oneOff).toMatchObject({ amount: "6.00", amount_before_discount: "5.00", tax: { amount: "1.00" } });
    expect(salesOf(id)).toEqual(charges.map((charge) => charge.amount));

    const first = await invoiceOf(signup?.invoice_number);
    expect(first).toMatchObject({
      subtotal: "19.90",
      discount: "0.00",
      tax: "3.98",
      tax_lines: [{ name: "VAT", percent: "20", amount: "3.98", inclusive: false }],
      total: "23.88",
    });
    for (const charge of charges) {
      const invoice = await invoiceOf(charge.invoice_number);
      expect(invoice.total).toBe(charge.amount);
      expectAddsUp(invoice);
    }

    // The next renewal charges the two seats, taxed: 39.80 + 7.96.
    await renewAfter(stack(), (await subscriptionOf(id)).next_charge_at);
    expect((await chargesOf(id)).at(-1)).toMatchObject({ amount: "47.76", tax: { amount: "7.96" } });
  });

  it("gives back the same share of tax with a refund: the credit note's net and tax make the amount refunded", async () => {
    const created = await call("POST", "/v1/subscriptions", {
      body: { customer: british, plan: { amount: "19.90", currency: "USD", interval_months: 1 }, card },
    });
    const { subscription_id: id } = z.looseObject({ subscription_id: z.string() }).parse(created.json);
    const [charge] = await chargesOf(id);
    const refund = await call("POST", `/v1/charges/${charge?.charge_id}/refunds`, {
      body: { amount: "10.00", reason: "customer request" },
    });
    expect(refund.status, refund.text).toBe(201);
    const { credit_note_number } = z.looseObject({ credit_note_number: z.string() }).parse(refund.json);
    const note = invoiceSchema.parse((await call("GET", `/v1/credit-notes/${credit_note_number}`)).json);
    // 10.00 = 8.33 + 20 % of it (1.666 → 1.67).
    expect(note).toMatchObject({
      subtotal: "8.33",
      tax: "1.67",
      tax_lines: [{ name: "VAT", percent: "20", amount: "1.67", inclusive: false }],
      total: "10.00",
    });
    expect(note.lines.map((line) => line.amount)).toEqual(["8.33"]);
  });

  it("is what the gateway charges on a plan it runs: the window's payment and each charge of its own", async () => {
    const started = await checkout({ customer: british, billing: "recurring" });
    await payInWindow(started.fgkey);
    await drainIntake(container);
    expect(await subscriptionOf(started.subscription_id)).toMatchObject({
      status: "active",
      tax_rate: { name: "VAT", percent: "20" },
    });
    await stack().clock.advance("P32D"); // the gateway charges its plan and calls recurring_noti_url
    await stack().sandbox.deliveries.settled();
    await drainIntake(container);
    const charges = await chargesOf(started.subscription_id);
    // 29.00 + 5.80, in the window and by the gateway's own run, each recorded with its tax and invoiced so.
    expect(charges.map((charge) => [charge.status, charge.amount, charge.tax?.amount])).toEqual([
      ["succeeded", "34.80", "5.80"],
      ["succeeded", "34.80", "5.80"],
    ]);
    for (const charge of charges)
      expect(await invoiceOf(charge.invoice_number)).toMatchObject({
        subtotal: "29.00",
        tax_lines: [{ amount: "5.80", inclusive: false }],
        total: "34.80",
      });
  });

  it("leaves a country whose rate is included in prices charging the price, the tax shown within it", async () => {
    const korean = { ...british, address: { line1: "1 Sejong-daero", city: "Seoul", country: "KR" } };
    const created = await call("POST", "/v1/subscriptions", {
      body: { customer: korean, plan: { amount: "19.90", currency: "USD", interval_months: 1 }, card },
    });
    const { subscription_id: id } = z.looseObject({ subscription_id: z.string() }).parse(created.json);
    expect((await subscriptionOf(id)).tax_rate).toBeUndefined();
    const [charge] = await chargesOf(id);
    expect(charge).toMatchObject({ amount: "19.90" });
    expect(charge?.tax).toBeUndefined();
    expect(await invoiceOf(charge?.invoice_number)).toMatchObject({
      subtotal: "19.90",
      tax_lines: [{ amount: "1.81", inclusive: true }],
      total: "19.90",
    });
  });
});
