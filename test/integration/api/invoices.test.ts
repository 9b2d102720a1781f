import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_INVOICING_POLICY, parseDocumentNumber } from "../../../functions/core/base/documents";
import { eventsOf, renewAfter } from "../../support/billing-scenarios";
import { errorOf } from "../../support/merchant-api";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// Invoices and credit notes through the merchant API (README, Invoices): every paid charge finalized as an invoice
// numbered from one gap-free sequence, however many charges close at once; every succeeded refund a credit note
// against that invoice; listed by subscription, by customer or all, newest first, from indexes.

const seller = {
  name: "Example Software Ltd.",
  address: ["1 Market Street", "94105 San Francisco CA", "US"],
  tax_id: "US-EIN 12-3456789",
  email: "billing@shop.example.com",
};
const { call, stack } = merchantApiOnStack("mk_test_1a2b3c4d5e6f708192a3b4c5d6e7f809", {
  policy: {
    invoicing: {
      ...DEFAULT_INVOICING_POLICY,
      time_zone: "Asia/Seoul",
      seller,
      tax_rates: [
        { country: "KR", name: "VAT", percent: "10", inclusive: true },
        { country: "*", name: "Sales tax", percent: "7.25", inclusive: true },
      ],
    },
  },
});

const card = { number: "4111111111111111", expiry: "203012", cvc: "123" };
const plan = { amount: "19.90", currency: "USD", interval_months: 1 };
const address = { line1: "1 Sejong-daero", city: "Seoul", postal_code: "04524", country: "KR" };

const line = z.looseObject({
  description: z.string(),
  quantity: z.number(),
  unit_amount: z.string(),
  amount: z.string(),
  period_start: z.string().nullable(),
  period_end: z.string().nullable(),
});
const invoiceView = z.looseObject({
  number: z.string(),
  charge_id: z.string(),
  subscription_id: z.string(),
  lines: z.array(line),
  subtotal: z.string(),
  discount: z.string(),
  tax: z.string(),
  total: z.string(),
  currency: z.string(),
});
const creditNoteView = z.looseObject({
  number: z.string(),
  refund_id: z.string(),
  invoice_number: z.string().nullable(),
  total: z.string(),
});
const invoicePage = z.object({ data: z.array(invoiceView), next_cursor: z.string().nullable() });
const creditNotePage = z.object({ data: z.array(creditNoteView), next_cursor: z.string().nullable() });
const charges = z.object({
  charges: z.array(
    z.looseObject({ charge_id: z.string(), status: z.string(), invoice_number: z.string().optional() }),
  ),
});

async function signUp(customer: object, extra: object = {}) {
  const answer = await call("POST", "/v1/subscriptions", { body: { customer, plan, card, ...extra } });
  expect(answer.status, JSON.stringify(answer.json)).toBe(201);
  return z
    .looseObject({ subscription_id: z.string(), next_charge_at: z.string().nullable() })
    .parse(answer.json);
}
const chargesOf = async (id: string) =>
  charges.parse((await call("GET", `/v1/subscriptions/${id}/charges`)).json).charges;

/** Every invoice of the stack, all pages of the listing. */
async function everyInvoice(query = "") {
  const found: z.infer<typeof invoiceView>[] = [];
  let cursor: string | null = null;
  do {
    const after: string = cursor === null ? "" : `&cursor=${cursor}`;
    const page = invoicePage.parse((await call("GET", `/v1/invoices?limit=7${query}${after}`)).json);
    found.push(...page.data);
    cursor = page.next_cursor;
  } while (cursor !== null);
  return found;
}

/** A document number's series (INV-2027) and sequence; throws for anything else. */
function numbered(number: string) {
  const parsed = parseDocumentNumber(number);
  if (parsed === undefined) throw new Error(`${number} is not a document number`);
  return parsed;
}
/** The sequence numbers of each series (INV-2026, INV-2027, …), in order. */
function seriesOf(numbers: readonly string[]): Map<string, number[]> {
  const series = new Map<string, number[]>();
  for (const { prefix, sequence } of numbers.map(numbered))
    series.set(prefix, [...(series.get(prefix) ?? []), sequence]);
  for (const sequences of series.values()) sequences.sort((a, b) => a - b);
  return series;
}
const oneToN = (n: number) => Array.from({ length: n }, (_, index) => index + 1);
/** Whether document `a` was numbered before `b`: an earlier year's series, or earlier in the same one. */
function issuedBefore(a: string, b: string): boolean {
  const [first, second] = [numbered(a), numbered(b)];
  return first.prefix === second.prefix ? first.sequence < second.sequence : first.prefix < second.prefix;
}

describe("invoices", () => {
  it("finalizes the sign-up's charge as an invoice: the seats, the period, the tax of the customer's country", async () => {
    const customer = { name: "Kim Min-ji", email: "minji@example.com", address, tax_id: "123-45-67890" };
    const { subscription_id: id } = await signUp(customer, { quantity: 3 });
    const [charge] = await chargesOf(id);
    expect(charge?.invoice_number).toMatch(/^INV-20\d\d-\d{6}$/);
    const answer = await call("GET", `/v1/invoices/${charge?.invoice_number}`);
    expect(answer.status).toBe(200);
    const invoice = invoiceView.parse(answer.json);
    expect(invoice).toMatchObject({
      charge_id: charge?.charge_id,
      subscription_id: id,
      seller: { ...seller },
      customer: {
        name: "Kim Min-ji",
        email: "minji@example.com",
        address: ["1 Sejong-daero", "04524 Seoul", "KR"],
        tax_id: "123-45-67890",
      },
      currency: "USD",
      subtotal: "59.70",
      discount: "0.00",
      // 59.70 includes 10 %: 59.70 − 54.27 (59.70 / 1.1, rounded half up).
      tax: "5.43",
      tax_lines: [{ name: "VAT", percent: "10", amount: "5.43", inclusive: true }],
      total: "59.70",
    });
    expect(invoice.lines).toEqual([
      expect.objectContaining({
        description: "Subscription",
        quantity: 3,
        unit_amount: "19.90",
        amount: "59.70",
      }),
    ]);
    expect(invoice.lines[0]?.period_start).toMatch(/^\d{4}-\d{2}-\d{2}$/);
    const finalized = (await eventsOf(stack(), id)).filter((event) => event.type === "invoice.finalized");
    expect(finalized).toEqual([
      expect.objectContaining({
        invoice_number: invoice.number,
        order_id: charge?.charge_id,
        total: "59.70",
      }),
    ]);
  });

  it("numbers many charges closing at once without a gap or a repeat, each charge its own invoice", async () => {
    const { subscription_id: id, next_charge_at } = await signUp({ name: "Ada", email: "ada@example.com" });
    const made = await Promise.all(
      Array.from({ length: 8 }, (_, index) =>
        call("POST", `/v1/subscriptions/${id}/charges`, {
          body: { amount: `${index + 1}.00` },
          headers: { "idempotency-key": `adhoc-${index}` },
        }),
      ),
    );
    expect(made.map((answer) => answer.status)).toEqual(Array(8).fill(201));
    await renewAfter(stack(), next_charge_at);

    const lines = (await chargesOf(id)).filter((charge) => charge.status === "succeeded");
    expect(lines).toHaveLength(10);
    const numbers = lines.map((charge) => charge.invoice_number);
    expect(new Set(numbers).size).toBe(10);
    // Across the whole stack (every test's charges), in each year's series: 1 to n, once each, each held by the charge
    // it names. The renewal falls in the next year's series when the suite runs in December.
    const all = await everyInvoice();
    for (const [prefix, sequences] of seriesOf(all.map((invoice) => invoice.number)))
      expect(sequences, prefix).toEqual(oneToN(sequences.length));
    for (const invoice of all.filter((each) => each.subscription_id === id))
      expect(lines.find((charge) => charge.charge_id === invoice.charge_id)?.invoice_number).toBe(
        invoice.number,
      );
  });

  it("records a refund as a credit note against the charge's invoice", async () => {
    const { subscription_id: id } = await signUp({
      name: "Ada",
      email: "ada@example.com",
      address: { ...address, country: "DE" },
    });
    const [charge] = await chargesOf(id);
    const refund = await call("POST", `/v1/charges/${charge?.charge_id}/refunds`, {
      body: { amount: "5.00", reason: "customer request" },
    });
    expect(refund.status, JSON.stringify(refund.json)).toBe(201);
    const { credit_note_number } = z
      .object({ credit_note_number: z.string() })
      .passthrough()
      .parse(refund.json);
    expect(credit_note_number).toMatch(/^CN-20\d\d-\d{6}$/);
    const note = await call("GET", `/v1/credit-notes/${credit_note_number}`);
    expect(note.json).toMatchObject({
      number: credit_note_number,
      invoice_number: charge?.invoice_number,
      charge_id: charge?.charge_id,
      reason: "customer request",
      total: "5.00",
      // Another country: the merchant's rate for any other, 7.25 % included (5.00 − 4.66).
      tax_lines: [{ name: "Sales tax", percent: "7.25", amount: "0.34", inclusive: true }],
    });
    const listed = creditNotePage.parse((await call("GET", `/v1/credit-notes?subscription_id=${id}`)).json);
    expect(listed.data.map((each) => each.number)).toEqual([credit_note_number]);
    expect((await eventsOf(stack(), id)).map((event) => event.type)).toContain("credit_note.created");
  });

  it("lists by customer and by issue time, newest first, a page at a time; bad input names its field", async () => {
    const customer = { name: "Grace", email: "grace@example.com", external_id: "acct_invoices" };
    const first = await signUp(customer);
    const second = await signUp(customer);
    await signUp({ ...customer, external_id: "acct_other" });
    const mine = await everyInvoice("&external_id=acct_invoices");
    expect(mine.map((invoice) => invoice.subscription_id).sort()).toEqual(
      [first.subscription_id, second.subscription_id].sort(),
    );
    const page = invoicePage.parse(
      (await call("GET", "/v1/invoices?external_id=acct_invoices&limit=1")).json,
    );
    expect(page.data.map((invoice) => invoice.number)).toEqual([mine[0]?.number]);
    expect(issuedBefore(mine[1]?.number ?? "", mine[0]?.number ?? "")).toBe(true);
    const future = invoicePage.parse((await call("GET", "/v1/invoices?from=2099-01-01")).json);
    expect(future.data).toEqual([]);
    const both = invoicePage.parse(
      (await call("GET", `/v1/invoices?external_id=acct_invoices&subscription_id=${first.subscription_id}`))
        .json,
    );
    expect(both.data.map((invoice) => invoice.subscription_id)).toEqual([first.subscription_id]);

    const refusals = [
      ["/v1/invoices?from=yesterday", 400, "from"],
      ["/v1/invoices?cursor=bm90", 400, "cursor"],
      ["/v1/invoices/INV-1", 400, "number"],
      ["/v1/credit-notes?limit=0", 400, "limit"],
      ["/v1/invoices/INV-2000-000001", 404, undefined],
    ] as const;
    for (const [path, status, field] of refusals) {
      const answer = await call("GET", path);
      expect([answer.status, errorOf(answer).field], path).toEqual([status, field]);
    }
  });

  it("names what a card that pays in its own currency was billed (DCC), on the sign-up and the renewal", async () => {
    // The sandbox's KRW card: each payment converted at its fixed rate, 1 USD = 1350 KRW.
    const dcc = { ...card, number: "4000000000000416" };
    const { subscription_id: id, next_charge_at } = await signUp(
      { name: "Lee Seo-yeon", email: "seoyeon@example.com" },
      { card: dcc },
    );
    await renewAfter(stack(), next_charge_at);
    const paid = (await chargesOf(id)).filter((charge) => charge.status === "succeeded");
    expect(paid).toHaveLength(2);
    // The charges say it too.
    for (const charge of paid)
      expect(charge).toMatchObject({ billed: { currency: "KRW", amount: "26865", rate: "1350" } });
    for (const charge of paid) {
      const invoice = z
        .looseObject({ total: z.string(), currency: z.string(), billed: z.unknown() })
        .parse((await call("GET", `/v1/invoices/${charge.invoice_number}`)).json);
      expect(invoice).toMatchObject({
        total: "19.90",
        currency: "USD",
        billed: { currency: "KRW", amount: "26865", rate: "1350" },
      });
    }
    // A card billed the total as it is says so.
    const [plain] = await everyInvoice(
      `&subscription_id=${(await signUp({ name: "Ada", email: "ada@example.com" })).subscription_id}`,
    );
    expect(plain).toMatchObject({ billed: null });
  });
});
