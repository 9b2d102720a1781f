import type { FaultCounts } from "../../sandbox/faults/faults";
import type { MoneyAudit } from "../audit/money-audit";
import type { RealFormCounts } from "../audit/real-forms";
import type { CrashPoint } from "../stack/crash-injection";
import type { CustomerPageCounts } from "./customer-pages";
import type { EventAccount } from "./event-accounting";
import type { MailAccount } from "./mail-accounting";
import type { MerchantActionCounts } from "./merchant-actions";
import type { ReconciliationAudit } from "./reconciliation-audit";
import type { WebhookAccount } from "./webhook-accounting";

// What the chaos run reports: what was thrown at the system, what the invariants found, and which of it are
// violations (chaos-table.ts prints it).

export interface ChaosReport {
  readonly seed: number;
  readonly subscriptions: number;
  readonly periodsDue: number;
  readonly charged: number;
  readonly declined: number;
  readonly pastDue: number;
  readonly canceled: number;
  readonly revokedTokens: number;
  readonly duplicateDeliveries: number;
  readonly overlappingRuns: number;
  readonly crashes: Readonly<Record<CrashPoint, number>>;
  /**
   * What the handlers' own metrics (their EMF records) counted: charges made, and charge messages that failed —
   * the crashes, met inside process-charges and its middleware.
   */
  readonly handlerMetrics: { readonly chargesSucceeded: number; readonly messagesFailed: number };
  /** The merchant's requests racing the charge runs. */
  readonly merchantActions: MerchantActionCounts;
  /** The customers' own pages: hosted checkouts and the portal. */
  readonly customerPages: CustomerPageCounts;
  /** A capped coupon redeemed past its max_redemptions (each a violation). */
  readonly couponsOverRedeemed: readonly string[];
  /** Checkouts still pending after their end (each a violation: the sweep must have closed them). */
  readonly checkoutsLeftPending: readonly string[];
  readonly faults: Readonly<FaultCounts>;
  /** The real gateway's own forms the run met. */
  readonly realForms: RealFormCounts;
  readonly doubleCharges: readonly string[];
  readonly lostPeriods: readonly string[];
  readonly mismatches: readonly string[];
  readonly deadLetters: { readonly explained: readonly string[]; readonly unexplained: readonly string[] };
  /** Window sign-ups (status_url callbacks, duplicated by the faults). */
  readonly windowSignups: number;
  /** Charges the sandbox charged back (each announced by a signed webhook, some out of order). */
  readonly chargebacks: number;
  /** Chargebacks at the gateway not recorded here at their latest status (each a violation). */
  readonly unrecordedChargebacks: readonly string[];
  /** Canceled subscriptions whose token is still active at the gateway (each a violation). */
  readonly liveTokens: readonly string[];
  /** The events the bus received, held against the ledger and the subscriptions. */
  readonly events: EventAccount;
  /** Every sale and refund the gateway made, held against the ledger. */
  readonly money: MoneyAudit;
  /** The run's days through reconcile-ledger: the gateway's transactions and payouts against the ledger. */
  readonly reconciliation: ReconciliationAudit;
  /** Event deliveries the bus refused while it was down. */
  readonly refusedDeliveries: number;
  /** The customer mails, held against the events that call for them. */
  readonly mails: MailAccount;
  /** Sends the mail service refused (throttled), each retried by the bus. */
  readonly refusedMails: number;
  /** Our webhooks, held against the bus's events, as the SaaS's receivers took them. */
  readonly webhooks: WebhookAccount;
  /** What send-webhooks' own metrics counted. */
  readonly webhookMetrics: {
    readonly delivered: number;
    readonly attemptsFailed: number;
    readonly deliveriesFailed: number;
  };
  /** Hours the clock ran on after the last step until every webhook retry had its turn. */
  readonly webhookSettleHours: number;
  /**
   * Card numbers, CVCs, keys or JWTs found in logs, table items, outboxes, queues, events or answers (each a
   * violation).
   */
  readonly leaks: readonly string[];
  /** Places the leak scan read. */
  readonly scanned: number;
  readonly wallMs: number;
}

export function violationsOf(
  report: Pick<
    ChaosReport,
    | "doubleCharges"
    | "lostPeriods"
    | "mismatches"
    | "deadLetters"
    | "unrecordedChargebacks"
    | "liveTokens"
    | "checkoutsLeftPending"
    | "couponsOverRedeemed"
    | "leaks"
    | "events"
    | "money"
    | "reconciliation"
    | "mails"
    | "webhooks"
  >,
): string[] {
  const { events, money, mails, webhooks } = report;
  return [
    ...report.doubleCharges.map((period) => `double charge: ${period}`),
    ...report.lostPeriods.map((line) => `lost period: ${line}`),
    ...report.mismatches.map((line) => `ledger mismatch: ${line}`),
    ...report.deadLetters.unexplained.map((line) => `unexplained dead letter: ${line}`),
    ...report.unrecordedChargebacks.map((line) => `chargeback not recorded: ${line}`),
    ...report.liveTokens.map((line) => `live token: ${line}`),
    ...report.checkoutsLeftPending.map((line) => `checkout left pending past its end: ${line}`),
    ...report.couponsOverRedeemed.map((line) => `coupon over-redeemed: ${line}`),
    ...money.refundMismatches.map((line) => `refund mismatch: ${line}`),
    ...money.openRefunds.map((line) => `refund left open: ${line}`),
    ...money.transactionsCreditedTwice.map((line) => `transaction credited twice: ${line}`),
    ...money.salesKeptAfterCancel.map((line) => `sale kept after a cancel: ${line}`),
    ...money.prorationMismatches.map((line) => `proration: ${line}`),
    ...money.creditMismatches.map((line) => `plan credit: ${line}`),
    ...money.documentMismatches.map((line) => `document: ${line}`),
    ...report.reconciliation.mismatches.map((line) => `reconciliation: ${line}`),
    ...report.leaks.map((line) => `leak: ${line}`),
    ...events.lost.map((line) => `lost event: ${line}`),
    ...events.inconsistent.map((line) => `event copies differ: ${line}`),
    ...events.misordered.map((line) => `event out of order: ${line}`),
    ...(events.undelivered > 0 ? [`${events.undelivered} event(s) never left their outbox`] : []),
    ...mails.sentTwice.map((line) => `mail sent twice: ${line}`),
    ...mails.lost.map((line) => `mail lost: ${line}`),
    ...webhooks.lost.map((line) => `webhook lost: ${line}`),
    ...webhooks.bad.map((line) => `bad webhook: ${line}`),
    ...webhooks.unsettled.map((line) => `webhook unsettled: ${line}`),
  ];
}
