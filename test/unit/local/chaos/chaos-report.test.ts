import { describe, expect, it } from "vitest";
import { violationsOf } from "../../../../local/chaos/chaos-report";

describe("chaos report", () => {
  it("lists every violation of a report", () => {
    const report = {
      doubleCharges: ["sub_a/1"],
      lostPeriods: ["sub_b: period 2 due, still active and unpaid"],
      mismatches: [],
      deadLetters: {
        explained: ["sub_c/1: already paid (a duplicate)"],
        unexplained: ["sub_d/3: due and unpaid"],
      },
      unrecordedChargebacks: ["sub_e-1-0: charged back at the gateway, not disputed here"],
      liveTokens: ["sub_f: canceled, token tok_f still active"],
      checkoutsLeftPending: ["sub_m: pending, its checkout ended 2027-03-02T10:00:00.000Z"],
      couponsOverRedeemed: ["co_1: redeemed 3 times, at most 2 allowed"],
      leaks: ["card 4111…1111 in log line 3"],
      events: {
        published: 3,
        distinct: 2,
        duplicates: 1,
        lost: ["charge.failed of sub_g-1-0"],
        inconsistent: ["evt_1 (charge.succeeded) differs between copies"],
        misordered: ["evt_6 and evt_7: sequence 2500 with two views"],
        undelivered: 2,
      },
      money: {
        refundMismatches: ["rf_1: refunded 3.00 at the gateway, pending here"],
        openRefunds: ["rf_2: unknown"],
        transactionsCreditedTwice: ["TX1: sub_h-1-0, sub_i-1-0"],
        salesKeptAfterCancel: ["sub_j-2-0: kept, its subscription canceled before period 2"],
        prorationMismatches: ["sub_k-5000-0: paid, its plan change still pending"],
        creditMismatches: ["sub_n: a plan credit never sent"],
        documentMismatches: ["INV-2027-000002: names sub_o-1-0, which moved no money"],
        refunds: 2,
        prorations: 1,
        credits: 1,
        invoices: 2,
        creditNotes: 0,
      },
      reconciliation: {
        days: 90,
        gatewayRecords: 12,
        payouts: 30,
        mismatches: ["payout 20270312: unsettled charge sub_p-1-0 T9"],
      },
      mails: {
        sent: 3,
        owed: 2,
        sentTwice: ["receipt-evt_2 sent 2 times"],
        lost: ["subscription.canceled evt_3 (sub_l) without its mail"],
      },
      webhooks: {
        endpoints: [],
        lost: ["flaky: charge.succeeded evt_4 never accepted"],
        bad: ["hanging: charge.failed evt_5: signature mismatch"],
        unsettled: ["1 message(s) in the delivery queue's DLQ"],
      },
    };
    expect(violationsOf(report)).toEqual([
      "double charge: sub_a/1",
      "lost period: sub_b: period 2 due, still active and unpaid",
      "unexplained dead letter: sub_d/3: due and unpaid",
      "chargeback not recorded: sub_e-1-0: charged back at the gateway, not disputed here",
      "live token: sub_f: canceled, token tok_f still active",
      "checkout left pending past its end: sub_m: pending, its checkout ended 2027-03-02T10:00:00.000Z",
      "coupon over-redeemed: co_1: redeemed 3 times, at most 2 allowed",
      "refund mismatch: rf_1: refunded 3.00 at the gateway, pending here",
      "refund left open: rf_2: unknown",
      "transaction credited twice: TX1: sub_h-1-0, sub_i-1-0",
      "sale kept after a cancel: sub_j-2-0: kept, its subscription canceled before period 2",
      "proration: sub_k-5000-0: paid, its plan change still pending",
      "plan credit: sub_n: a plan credit never sent",
      "document: INV-2027-000002: names sub_o-1-0, which moved no money",
      "reconciliation: payout 20270312: unsettled charge sub_p-1-0 T9",
      "leak: card 4111…1111 in log line 3",
      "lost event: charge.failed of sub_g-1-0",
      "event copies differ: evt_1 (charge.succeeded) differs between copies",
      "event out of order: evt_6 and evt_7: sequence 2500 with two views",
      "2 event(s) never left their outbox",
      "mail sent twice: receipt-evt_2 sent 2 times",
      "mail lost: subscription.canceled evt_3 (sub_l) without its mail",
      "webhook lost: flaky: charge.succeeded evt_4 never accepted",
      "bad webhook: hanging: charge.failed evt_5: signature mismatch",
      "webhook unsettled: 1 message(s) in the delivery queue's DLQ",
    ]);
  });
});
