import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { createRandomIds } from "../../../../functions/adapters/outside/random-ids";
import { subscriptionPeriod } from "../../../../functions/core/base/billing-period";
import { isAdHocPeriod } from "../../../../functions/core/base/charge-kind";
import { DEFAULT_CHARGE_POLICY } from "../../../../functions/core/base/charge-policy";
import { toCents } from "../../../../functions/core/base/money";
import { COUPON_ID_PREFIX } from "../../../../functions/core/catalog/coupons";
import { processChargeMessage } from "../../../../functions/core/charging/charge-engine";
import { changePlan } from "../../../../functions/core/lifecycle/plan-change";
import { editSubscription } from "../../../../functions/core/lifecycle/subscription-changes";
import type { Coupon, CouponStore } from "../../../../functions/core/ports/coupon-store";
import { dueSubscription, START } from "../../../support/fake-billing";
import { MemoryBillingRepository } from "../../../support/memory-billing-repository";
import { MoneyGateway } from "../../../support/money-gateway";
import { partialPort } from "../../../support/partial-port";

// Prices under random sequences (README, Seats and Coupons): seat changes (charged now or not, now or at the next
// renewal), coupons applied and removed, and renewals. A model written here from the README's rules, not from the
// core, says what each period and each proration should cost; the gateway's sales must be exactly those, period by
// period, and each ledger line must show the total before its discount and the discount.

const ID = "sub_pricing";
const UNIT_CENTS = 1990;
const DAY_MS = 86_400_000;

/** The coupons a sequence may apply: a percentage for two charges, an amount once, a free one, half forever. */
const COUPONS: readonly Coupon[] = [
  { percent_off_bp: 1500, duration: "repeating", duration_in_months: 2 },
  { amount_off: "5.00", currency: "USD", duration: "once" },
  { percent_off_bp: 10_000, duration: "once" },
  { percent_off_bp: 5000, duration: "forever" },
].map((terms, index) => ({
  coupon_id: `${COUPON_ID_PREFIX}${index}`,
  times_redeemed: 0,
  created_at: START.toISOString(),
  ...(terms as Pick<Coupon, "duration">),
}));

type Operation =
  | { readonly kind: "renew" }
  | {
      readonly kind: "seats";
      readonly quantity: number;
      readonly chargeNow: boolean;
      readonly at?: "now" | "next_renewal";
    }
  | { readonly kind: "coupon"; readonly coupon: number | null }
  | { readonly kind: "later"; readonly days: number };

const operation: fc.Arbitrary<Operation> = fc.oneof(
  fc.constant<Operation>({ kind: "renew" }),
  fc.record({
    kind: fc.constant("seats" as const),
    quantity: fc.integer({ min: 1, max: 6 }),
    chargeNow: fc.boolean(),
    at: fc.constantFrom<("now" | "next_renewal" | undefined)[]>(undefined, "now", "next_renewal"),
  }),
  fc.record({
    kind: fc.constant("coupon" as const),
    coupon: fc.option(fc.integer({ min: 0, max: COUPONS.length - 1 }), { nil: null }),
  }),
  fc.record({ kind: fc.constant("later" as const), days: fc.integer({ min: 1, max: 20 }) }),
);

/** What the README's rules make of a sequence: the subscription's seats and discount, and what each charge costs. */
class Model {
  seats = 1;
  scheduledSeats: number | undefined;
  discount: { coupon: Coupon; left: number | undefined } | undefined;
  /** Expected sales: period charges by period, prorations in order. */
  readonly periods = new Map<number, number>();
  readonly prorations: number[] = [];

  /** A total less the discount: a percentage rounded up to the cent, an amount off whole, never below zero. */
  charged(totalCents: number): number {
    const coupon = this.discount?.coupon;
    if (coupon === undefined) return totalCents;
    const off =
      coupon.amount_off !== undefined
        ? toCents(coupon.amount_off)
        : Math.ceil((totalCents * (coupon.percent_off_bp ?? 0)) / 10_000);
    return Math.max(0, totalCents - off);
  }

  renewed(period: number): void {
    const seats = this.scheduledSeats ?? this.seats;
    this.periods.set(period, this.charged(seats * UNIT_CENTS));
    this.seats = seats;
    this.scheduledSeats = undefined;
    if (this.discount?.left !== undefined) {
      this.discount.left -= 1;
      if (this.discount.left === 0) this.discount = undefined;
    }
  }

  /** A seat change as the README has it; the proration owed (for what is left of the period) when charged now. */
  seatsChanged(
    quantity: number,
    at: "now" | "next_renewal" | undefined,
    leftShare: number,
    chargeNow: boolean,
  ) {
    const when = at ?? (quantity < this.seats ? "next_renewal" : "now");
    if (chargeNow && when !== "now") return;
    if (when === "next_renewal") {
      this.scheduledSeats = quantity === this.seats ? undefined : quantity;
      return;
    }
    const owed = this.charged(quantity * UNIT_CENTS) - this.charged(this.seats * UNIT_CENTS);
    const proration = chargeNow ? Math.floor(owed * leftShare) : 0;
    if (proration > 0) this.prorations.push(proration);
    this.seats = quantity;
    this.scheduledSeats = undefined;
  }

  couponApplied(index: number | null): void {
    if (index === null) {
      this.discount = undefined;
      return;
    }
    const coupon = COUPONS[index] as Coupon;
    if (this.discount?.coupon.coupon_id === coupon.coupon_id) return;
    const left =
      coupon.duration === "once"
        ? 1
        : coupon.duration === "repeating"
          ? coupon.duration_in_months
          : undefined;
    this.discount = { coupon, left };
  }
}

function world() {
  let now = START;
  const clock = { now: () => now };
  const repository = new MemoryBillingRepository({ clock });
  const gateway = new MoneyGateway();
  const coupons = partialPort<CouponStore>({
    findByCode: async () => undefined,
    getCoupon: async (id) => COUPONS.find((coupon) => coupon.coupon_id === id),
    redeem: async () => "redeemed",
  });
  const deps = {
    repository,
    gateway,
    clock,
    coupons,
    policy: DEFAULT_CHARGE_POLICY,
    ids: createRandomIds(),
    queue: { send: async () => undefined },
  };
  const model = new Model();
  const later = (ms: number) => {
    now = new Date(now.getTime() + ms);
  };
  const run = async (op: Operation) => {
    const subscription = await repository.getSubscription(ID);
    if (subscription === undefined) throw new Error("the subscription is gone");
    switch (op.kind) {
      case "renew": {
        later(Math.max(0, Date.parse(subscription.next_charge_at ?? "") - now.getTime()));
        await processChargeMessage({ subscription_id: ID, period: subscription.period }, 1, deps);
        model.renewed(subscription.period);
        return;
      }
      case "seats": {
        const paid = subscriptionPeriod(subscription, subscription.period - 1);
        const leftShare = paid
          ? Math.max(0, paid.end.getTime() - now.getTime()) / (paid.end.getTime() - paid.start.getTime())
          : 0;
        const result = await changePlan(
          {
            subscription_id: ID,
            quantity: op.quantity,
            proration: op.chargeNow ? "charge_now" : "none",
            ...(op.at === undefined ? {} : { at: op.at }),
            request_key: `seats-${now.toISOString()}-${op.quantity}`,
          },
          deps,
        );
        if (result.kind !== "conflict") model.seatsChanged(op.quantity, op.at, leftShare, op.chargeNow);
        return;
      }
      case "coupon": {
        const reference = op.coupon === null ? null : (COUPONS[op.coupon]?.coupon_id ?? null);
        await editSubscription(ID, { coupon: reference }, deps);
        model.couponApplied(op.coupon);
        return;
      }
      case "later":
        later(op.days * DAY_MS);
        return;
    }
  };
  return { repository, gateway, model, run };
}

describe("prices under random sequences", () => {
  it("charges each period its seats' total less the discount, and each proration the difference for what is left", async () => {
    await fc.assert(
      fc.asyncProperty(fc.array(operation, { minLength: 1, maxLength: 14 }), async (operations) => {
        const w = world();
        await w.repository.createSubscription(dueSubscription(ID));
        for (const op of [...operations, { kind: "renew" } as const]) await w.run(op);

        const lines = await w.repository.listAttempts(ID);
        const sales = new Map(w.gateway.payments().map((sale) => [sale.orderId, toCents(sale.amount)]));
        const periodLines = lines.filter((line) => !isAdHocPeriod(line.period));
        for (const line of periodLines) {
          const expected = w.model.periods.get(line.period);
          expect(toCents(line.amount), `period ${line.period}`).toBe(expected);
          // Free periods reach no gateway; every other is one sale of its amount.
          expect(sales.get(line.order_id) ?? 0, `period ${line.period}`).toBe(expected);
          expect(toCents(line.amount_before_discount ?? line.amount) - toCents(line.discount ?? "0")).toBe(
            toCents(line.amount),
          );
        }
        expect(periodLines.map((line) => line.period).sort()).toEqual([...w.model.periods.keys()].sort());
        const prorations = lines
          .filter((line) => line.purpose === "proration")
          .map((line) => toCents(line.amount));
        // The model's share is of the exact instant; the core's rounds down to the cent the same way.
        expect(prorations).toEqual(w.model.prorations);
        const total = [...sales.values()].reduce((sum, cents) => sum + cents, 0);
        const expectedTotal =
          [...w.model.periods.values()].reduce((sum, cents) => sum + cents, 0) +
          w.model.prorations.reduce((sum, cents) => sum + cents, 0);
        expect(total).toBe(expectedTotal);
      }),
      { numRuns: 150 },
    );
  });
});
