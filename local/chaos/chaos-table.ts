import { formatTable } from "../../cli/text-table";
import { realFormRows } from "../audit/real-forms";
import type { ChaosReport } from "./chaos-report";

const count = (value: number) => value.toLocaleString("en-US");

/** The chaos run's table: what was thrown at the system, then each invariant with its count and verdict. */
export function chaosTable(report: ChaosReport): string {
  const crashes = Object.entries(report.crashes).map(([point, times]) => `${point} ${times}`);
  const { faults, merchantActions: merchant, customerPages: pages } = report;
  const run = formatTable(
    ["run", "value"],
    [
      ["seed", String(report.seed)],
      ["subscriptions", count(report.subscriptions)],
      ["subscription-periods due", count(report.periodsDue)],
      ["charged (succeeded)", count(report.charged)],
      ["declined attempts", count(report.declined)],
      ["past_due / canceled at the end", `${count(report.pastDue)} / ${count(report.canceled)}`],
      ["window sign-ups (status_url callbacks)", count(report.windowSignups)],
      ["charges charged back (signed webhooks)", count(report.chargebacks)],
      ["tokens revoked mid-run", count(report.revokedTokens)],
      ["duplicate deliveries", count(report.duplicateDeliveries)],
      ["overlapping charge runs", `${report.overlappingRuns} × 2`],
      ["worker crashes", crashes.join(", ")],
      [
        "process-charges' own metrics",
        `ChargeSucceeded ${count(report.handlerMetrics.chargesSucceeded)}, ChargeMessagesFailed ${count(report.handlerMetrics.messagesFailed)}`,
      ],
      [
        "merchant requests racing the charges",
        `cancels at period end ${merchant.cancelsAtPeriodEnd}, cancels with a prorated refund ${merchant.cancelsWithRefund}, ` +
          `pauses ${merchant.pauses} (${merchant.pausesRefused} refused while charging), resumes ${merchant.resumes}, ` +
          `card updates in dunning ${merchant.cardUpdates} (${merchant.cardUpdatesRefused} refused)`,
      ],
      [
        "money requests racing the charges",
        `partial refunds ${merchant.refundRequests} (concurrent, shared and distinct keys; ${merchant.refundsMade} made, ` +
          `${merchant.refundsRefused} refused past the balance), plan changes with charge_now ${merchant.upgrades} ` +
          "(concurrent to two amounts under distinct keys, racing an edit, asked again with a new key)",
      ],
      [
        "seats and coupons racing the renewals",
        `seat changes ${merchant.seatChanges} (more with charge_now under two keys at once, fewer at the next renewal, fewer now refunded under three keys at once), ` +
          `coupons applied, replaced or removed ${merchant.couponEdits} (${merchant.couponsRefused} refused: the capped coupon used up)`,
      ],
      [
        "customers' pages",
        `hosted checkouts paid ${pages.hostedPaid}, refused then paid on the page's retry ${pages.hostedRetried}, ` +
          `left to expire ${pages.hostedLeft}; portal: overdue retried with the card on file ${pages.portalRetries}, ` +
          `paid with a new card ${pages.portalNewCards}, cancels at period end ${pages.portalCancels} ` +
          `(${pages.portalActionsGone} no longer offered when posted)`,
      ],
      [
        "forgeries",
        `recurring notices without the plan's secret ${merchant.forgedNotices} (all 404), ` +
          `partner hints for unpaid orders and other subscriptions' sales ${merchant.forgedHints}`,
      ],
      ["event deliveries refused by the bus (down for renewal 2)", count(report.refusedDeliveries)],
      [
        "sandbox faults",
        `503 ${faults.error}, EM00/EX1000 ${faults.internalError}, timeout after commit ${faults.timeoutAfterCommit}, ` +
          `500 after commit ${faults.errorAfterCommit}, ` +
          `latency ${faults.latency}, duplicate status_url ${faults.duplicateStatusUrl}, ` +
          `mixed callback forms ${faults.mixedCallbackForm}, out-of-order webhooks ${faults.outOfOrderWebhook}`,
      ],
      ...realFormRows(report.realForms),
      ["events on the bus (distinct event_ids)", count(report.events.distinct)],
      ["event copies (same event_id again; consumers de-duplicate)", count(report.events.duplicates)],
      [
        "customer mails",
        `${count(report.mails.sent)} sent (${count(report.mails.owed)} owed receipts and ends), ` +
          `${count(report.refusedMails)} sends refused by the mail service and retried`,
      ],
      ...report.webhooks.endpoints.map((endpoint) => [
        `webhook endpoint "${endpoint.name}" (${endpoint.events}; ${endpoint.behaviour})`,
        `${count(endpoint.deliveries)} deliveries of ${count(endpoint.owed)} events, ` +
          `${count(endpoint.retries)} retries (${count(endpoint.refused)} answered 500/503, ` +
          `${count(endpoint.timedOut)} timed out, ${count(endpoint.stale)} refused as stale), ` +
          `${count(endpoint.copies)} copies accepted`,
      ]),
      [
        "send-webhooks' own metrics",
        `WebhooksDelivered ${count(report.webhookMetrics.delivered)}, ` +
          `WebhookAttemptsFailed ${count(report.webhookMetrics.attemptsFailed)}, ` +
          `WebhookDeliveriesFailed ${count(report.webhookMetrics.deliveriesFailed)}`,
      ],
      ["clock run on at the end for the last webhook retries", `${report.webhookSettleHours} h`],
      ["wall time", `${(report.wallMs / 1000).toFixed(1)} s`],
    ],
  );
  const verdict = (values: readonly string[]) => [
    String(values.length),
    values.length === 0 ? "ok" : "VIOLATED",
  ];
  const invariants = formatTable(
    ["invariant", "count", "verdict"],
    [
      ["double charges", ...verdict(report.doubleCharges)],
      ["lost periods", ...verdict(report.lostPeriods)],
      ["ledger vs sandbox mismatches", ...verdict(report.mismatches)],
      ["unexplained dead letters", ...verdict(report.deadLetters.unexplained)],
      ["chargebacks not recorded", ...verdict(report.unrecordedChargebacks)],
      [
        `refunds: gateway vs ledger, refund for refund (${count(report.money.refunds)} refunds)`,
        ...verdict(report.money.refundMismatches),
      ],
      ["refunds left pending or unknown", ...verdict(report.money.openRefunds)],
      [
        "gateway transactions credited to more than one ledger line",
        ...verdict(report.money.transactionsCreditedTwice),
      ],
      ["sales kept for a period after a cancel", ...verdict(report.money.salesKeptAfterCancel)],
      [
        `proration sales beyond the upgrades applied, in count or amount, or paid with the change pending (${count(report.money.prorations)} proration lines)`,
        ...verdict(report.money.prorationMismatches),
      ],
      [
        `plan credits beyond the decreases applied, in count or amount, or left unsent (${count(report.money.credits)} credits)`,
        ...verdict(report.money.creditMismatches),
      ],
      [
        `invoices and credit notes unlike the money moved, or a sequence with a gap or a repeat (${count(report.money.invoices)} invoices, ${count(report.money.creditNotes)} credit notes, ${count(report.money.taxedDocuments)} with VAT on top)`,
        ...verdict(report.money.documentMismatches),
      ],
      [
        `reconcile-ledger over the run's ${report.reconciliation.days} days: transactions or payouts unlike the ledger (${count(report.reconciliation.gatewayRecords)} gateway records, ${count(report.reconciliation.payouts)} payouts)`,
        ...verdict(report.reconciliation.mismatches),
      ],
      ["canceled with a live token", ...verdict(report.liveTokens)],
      ["checkouts left pending past their end", ...verdict(report.checkoutsLeftPending)],
      ["coupon redemptions past max_redemptions", ...verdict(report.couponsOverRedeemed)],
      ["events lost (a ledger fact, status or MRR change without its event)", ...verdict(report.events.lost)],
      ["event copies that differ", ...verdict(report.events.inconsistent)],
      [
        "events out of order (unplaced, a sequence with two views, a last view unlike the stored one)",
        ...verdict(report.events.misordered),
      ],
      ["mails sent twice for one event", ...verdict(report.mails.sentTwice)],
      ["mails lost (an event that calls for one, unmailed)", ...verdict(report.mails.lost)],
      ["webhooks lost (an event a subscribed endpoint never accepted)", ...verdict(report.webhooks.lost)],
      [
        "webhooks with a bad signature, headers unlike the body, or of a type not subscribed to",
        ...verdict(report.webhooks.bad),
      ],
      [
        "webhook deliveries left retrying or failed, unrecorded, or on the queue or its DLQ",
        ...verdict(report.webhooks.unsettled),
      ],
      [
        "events never delivered",
        String(report.events.undelivered),
        report.events.undelivered === 0 ? "ok" : "VIOLATED",
      ],
      [`leaks (${count(report.scanned)} places scanned)`, ...verdict(report.leaks)],
      ["dead letters explained", String(report.deadLetters.explained.length), "info"],
    ],
  );
  return `${run}\n\n${invariants}`;
}
