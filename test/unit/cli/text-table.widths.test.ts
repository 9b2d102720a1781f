import { describe, expect, it } from "vitest";
import { chargeTable } from "../../../cli/charges";
import { messageTable } from "../../../cli/dlq";
import { eventTable } from "../../../cli/events";
import { mismatchTable } from "../../../cli/reconcile";
import { refundTable, subscriptionTable } from "../../../cli/subscriptions";
import { MAX_WIDTH } from "../../../cli/text-table";
import type { ChargeView, RefundView } from "../../../functions/api/merchant-api-views";
import type { OutboxEvent } from "../../../functions/core/base/events";
import type { SubscriptionView } from "../../../functions/core/base/subscription-view";
import type { Mismatch } from "../../../functions/core/refunds/reconciliation";
import { INSUFFICIENT_FUNDS_DECLINE } from "../../support/declines";

// Every table the CLI prints fits MAX_WIDTH (120) columns, rendered from rows as long as they come: ids at their
// longest (an ad hoc charge's order_id, the gateway's 30-character limit), the largest amount the gateway takes, the
// longest status and event type, free text (external ids, refund reasons, message bodies) at its limit. A
// subscription's ledger has one currency (a plan change keeps it), named in the amount column's title.

const SUBSCRIPTION = "sub_4mjf0mp6q6kny7ba";
const AD_HOC_CHARGE = `${SUBSCRIPTION}-5012-3`;
const TRANSACTION = "SBXTEST001W0000000000001";
const AMOUNT = "99999999.99";
const AT = "2027-03-01T14:05:09.123Z";

const charge = (fields: Partial<ChargeView>): ChargeView => ({
  charge_id: AD_HOC_CHARGE,
  kind: "scheduled",
  period: 5012,
  attempt: 3,
  order_id: AD_HOC_CHARGE,
  amount: AMOUNT,
  amount_before_discount: AMOUNT,
  discount: "0.00",
  currency: "USD",
  status: "succeeded",
  transaction_id: TRANSACTION,
  refunded_amount: AMOUNT,
  created_at: AT,
  ...fields,
});

const subscription: SubscriptionView = {
  subscription_id: SUBSCRIPTION,
  status: "past_due",
  status_reason: "payment_declined",
  billing: "token",
  external_id: "x".repeat(100),
  metadata: {},
  plan: { amount: AMOUNT, currency: "USD", interval_months: 10, quantity: 1 },
  current_period: { index: 120, start: AT, end: AT },
  next_charge_at: AT,
  card: { first4: "4111", last4: "1111", expiry: "203012" } as SubscriptionView["card"],
  cancel_at: null,
  scheduled_plan: null,
  discount: null,
  trial_end: null,
  resume_at: null,
  created_at: AT,
};

const refund: RefundView = {
  refund_id: "rf_qk5x58zkq4yvpt5w",
  charge_id: AD_HOC_CHARGE,
  amount: AMOUNT,
  currency: "USD",
  reason: "r".repeat(200),
  status: "succeeded",
  refund_transaction_id: TRANSACTION,
  created_at: AT,
};

const event = {
  event_id: "49104faf-24a0-42e5-ade3-f4e942a62423",
  type: "subscription.cancel_scheduled",
  subscription_id: SUBSCRIPTION,
  order_id: `${"o".repeat(30)}`,
  occurred_at: AT,
} as unknown as OutboxEvent;

const mismatch = (fields: Partial<Mismatch>): Mismatch => ({
  kind: "amount_differs",
  line: "refund",
  order_id: "o".repeat(30),
  transaction_id: TRANSACTION,
  gateway_amount: `-${AMOUNT}`,
  ledger_amount: AMOUNT,
  ledger_status: "succeeded",
  at: "20270301235959",
  ...fields,
});

const tables: [string, string][] = [
  [
    "charges list",
    chargeTable([
      charge({}),
      charge({ status: "declined", decline: INSUFFICIENT_FUNDS_DECLINE }),
      charge({ amount: "0.01", discount: "99999999.98", coupon_id: "co_5ebdnq4gdnoyqjeb" }),
    ]),
  ],
  [
    "subscriptions list",
    subscriptionTable([subscription, { ...subscription, status: "trialing", external_id: null }]),
  ],
  ["subscriptions show: refunds", refundTable([refund, { ...refund, status: "pending" }])],
  ["events list", eventTable([event])],
  [
    "dlq list",
    messageTable([{ message_id: event.event_id, receive_count: 1000, sent_at: AT, body: "b".repeat(2000) }]),
  ],
  [
    "reconcile",
    mismatchTable([
      mismatch({}),
      mismatch({ kind: "missing_at_gateway", line: "charge", at: AT }),
      mismatch({ kind: "missing_here", ledger_amount: undefined }),
      mismatch({ kind: "status_differs", ledger_status: "unknown" }),
      mismatch({ kind: "status_differs" }),
    ]),
  ],
];

describe("the CLI's tables", () => {
  it.each(tables)("%s fits 120 columns", (_name, table) => {
    const widest = Math.max(...table.split("\n").map((line) => line.length));
    expect(widest).toBeLessThanOrEqual(MAX_WIDTH);
  });

  it("cut free text, never ids or amounts", () => {
    const {
      "charges list": charges = "",
      "subscriptions list": subscriptions = "",
      reconcile = "",
    } = Object.fromEntries(tables);
    expect(charges).toContain(AD_HOC_CHARGE);
    expect(charges).toContain(`${AMOUNT}  succeeded  ${AMOUNT}`);
    expect(subscriptions).toContain("xxx…");
    expect(reconcile).toContain("o".repeat(30));
    expect(reconcile.replaceAll(/\s+/g, " ")).toContain(`gateway -${AMOUNT}, ledger ${AMOUNT}`);
    expect(reconcile).toContain("2027-03-01 14:59Z");
  });
});
