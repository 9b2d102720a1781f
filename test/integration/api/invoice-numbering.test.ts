import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_INVOICING_POLICY } from "../../../functions/core/base/documents";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// Invoice and credit-note numbers at the year's turn (README, Invoices and credit notes): each year's series starts
// from 1 and runs on without a gap, and the year is the issue date's in the merchant's time zone, not UTC's. The
// stack's clock starts at a named instant, 23:50 on 31 December in Seoul, whatever the machine's date.

const { call, stack, signUp } = merchantApiOnStack("mk_test_0f1e2d3c4b5a69788796a5b4c3d2e1f0", {
  start: new Date("2027-12-31T14:50:00Z"),
  policy: { invoicing: { ...DEFAULT_INVOICING_POLICY, time_zone: "Asia/Seoul" } },
});

const charges = z.object({
  charges: z.array(
    z.looseObject({ charge_id: z.string(), status: z.string(), invoice_number: z.string().optional() }),
  ),
});
const refund = z.looseObject({ credit_note_number: z.string() });

describe("invoice numbers at the year's turn", () => {
  it("start a new series from 1 when the merchant's year turns, and each series runs on without a gap", async () => {
    const { subscription_id: id } = z.looseObject({ subscription_id: z.string() }).parse(await signUp());
    const charge = async (key: string) => {
      const answer = await call("POST", `/v1/subscriptions/${id}/charges`, {
        body: { amount: "5.00" },
        headers: { "idempotency-key": key },
      });
      expect(answer.status, JSON.stringify(answer.json)).toBe(201);
    };
    const refundOf = async (chargeId: string) => {
      const answer = await call("POST", `/v1/charges/${chargeId}/refunds`, {
        body: { amount: "1.00", reason: "customer request" },
      });
      expect(answer.status, JSON.stringify(answer.json)).toBe(201);
      return refund.parse(answer.json).credit_note_number;
    };
    const numbers = async () =>
      charges
        .parse((await call("GET", `/v1/subscriptions/${id}/charges`)).json)
        .charges.filter((each) => each.status === "succeeded");

    await charge("before-midnight");
    const lastYear = await numbers();
    expect(lastYear.map((each) => each.invoice_number).sort()).toEqual([
      "INV-2027-000001",
      "INV-2027-000002",
    ]);
    const [lastYearCharge] = lastYear;
    const lastYearNote = await refundOf(lastYearCharge?.charge_id ?? "");

    // 00:10 on 1 January in Seoul; still 31 December in UTC.
    await stack().clock.set(new Date("2027-12-31T15:10:00Z"));
    await charge("after-midnight-1");
    await charge("after-midnight-2");
    const all = (await numbers()).map((each) => each.invoice_number).sort();
    expect(all).toEqual(["INV-2027-000001", "INV-2027-000002", "INV-2028-000001", "INV-2028-000002"]);
    expect(lastYearNote).toBe("CN-2027-000001");
    // A refund made this year of last year's charge is numbered in this year's series.
    expect(await refundOf(lastYearCharge?.charge_id ?? "")).toBe("CN-2028-000001");
  });
});
