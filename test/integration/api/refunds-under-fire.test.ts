import { describe, expect, it } from "vitest";
import { z } from "zod";
import { DEFAULT_CHARGE_POLICY } from "../../../functions/core/base/charge-policy";
import { toCents } from "../../../functions/core/base/money";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// Refunds through the merchant API while the gateway fails (README, Exactly once: refunds): concurrent partial refunds
// of one charge, some of whose cancels commit and then answer 500, lose their answer, or meet a 503 before anything
// happened; each request retried with its own Idempotency-Key. No answer is a 5xx, the charge is never refunded beyond
// its amount, no key refunds twice, and once the attempt sweep has run the ledger equals the gateway refund for refund.

const { call, stack, signUp } = merchantApiOnStack("mk_test_refunds_under_fire_0123456789ab");

const chargesView = z.object({
  charges: z.array(
    z.object({ charge_id: z.string(), transaction_id: z.string().optional(), refunded_amount: z.string() }),
  ),
});
const refundView = z.object({ refund_id: z.string(), status: z.string(), amount: z.string() });

/** The gateway's refunds of one transaction. */
const gatewayRefundsOf = (transactionId: string) =>
  [...stack().sandbox.state.payments.refunds()].filter((refund) => refund.transactionId === transactionId);

describe("refunds under fire", () => {
  it("refunds 20 concurrent partial requests exactly once each, never beyond the charge, ledger equal to the gateway", async () => {
    const signedUp = z.object({ subscription_id: z.string() }).parse(await signUp());
    const listed = chargesView.parse(
      (await call("GET", `/v1/subscriptions/${signedUp.subscription_id}/charges`)).json,
    );
    const charge = listed.charges[0];
    if (charge?.transaction_id === undefined) throw new Error("no paid charge");
    const refundOnce = (index: number) =>
      call("POST", `/v1/charges/${charge.charge_id}/refunds`, {
        body: { amount: "1.50", reason: "goodwill" },
        idempotencyKey: `refund-${index}`,
      });

    stack().sandbox.faults.configure({
      routes: {
        "payments.cancel": { errorAfterCommitRate: 0.2, timeoutAfterCommitRate: 0.15, errorRate: 0.15 },
        "payments.retrieve": { errorRate: 0.2 },
      },
    });
    const keys = Array.from({ length: 20 }, (_, index) => index);
    const first = await Promise.all(keys.map(refundOnce));
    // Each request again with its own key, still under fire: it meets its first refund, never a second one.
    const retried = await Promise.all(keys.map(refundOnce));
    for (const answer of [...first, ...retried]) expect([201, 202, 422]).toContain(answer.status);
    expect(first.some((answer) => answer.status === 202)).toBe(true);

    // The attempt sweep settles what was left open, while retrieve still fails now and then.
    for (let sweep = 0; sweep < 6; sweep += 1) {
      await stack().clock.advance(DEFAULT_CHARGE_POLICY.inflightWindowMs + 60_000);
      if (sweep === 3) stack().sandbox.faults.configure({});
      await stack().attemptSweep();
    }

    const made = gatewayRefundsOf(charge.transaction_id);
    const madeCents = made.reduce((sum, refund) => sum + toCents(refund.amount), 0);
    // 13 × 1.50 fit in 19.90; the 7 others are refused, whatever the interleaving.
    expect(made).toHaveLength(13);
    expect(madeCents).toBe(1950);
    const after = chargesView.parse(
      (await call("GET", `/v1/subscriptions/${signedUp.subscription_id}/charges`)).json,
    );
    expect(after.charges[0]?.refunded_amount).toBe("19.50");
    const refunds = await stack().services.repository.listRefunds(signedUp.subscription_id);
    expect(refunds.filter((refund) => refund.status === "pending" || refund.status === "unknown")).toEqual(
      [],
    );
    const succeeded = refunds.filter((refund) => refund.status === "succeeded");
    expect(new Set(succeeded.map((refund) => refund.refund_id))).toEqual(
      new Set(made.map((refund) => refund.refundId)),
    );

    // Every key now answers its settled refund: 13 made, 7 refused.
    const settled = await Promise.all(keys.map(refundOnce));
    expect(settled.filter((answer) => answer.status === 201)).toHaveLength(13);
    expect(settled.filter((answer) => answer.status === 422)).toHaveLength(7);
    for (const answer of settled.filter((a) => a.status === 201)) {
      expect(refundView.parse(answer.json)).toMatchObject({ status: "succeeded", amount: "1.50" });
    }
    expect(gatewayRefundsOf(charge.transaction_id)).toHaveLength(13);
  });
});
