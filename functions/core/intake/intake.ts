import { type ChargePolicy, retryDelaySeconds } from "../base/charge-policy";
import { type ChargeAttempt, OPEN_ATTEMPT_STATUSES } from "../base/model";
import { attemptKeyOf } from "../base/order-id";
import type { WorkResult } from "../base/work-result";
import { closeAttempt } from "../charging/charge-engine";
import { recordRecurringCharge } from "../charging/recurring-notice";
import { type CompletionDeps, completeCheckout } from "../lifecycle/checkout";
import type { IntakeMessage } from "../ports/intake-messages";
import { recordChargebackReport } from "../refunds/disputes";
import { recordFirstPayment } from "../signup/signup-steps";

// process-intake (README, Merchant API: the webhook routes): what each queued delivery changes. Every path is safe to
// run twice: status_url repeats, webhooks are re-sent, SQS delivers at least once.

export type IntakeDeps = CompletionDeps & { readonly policy: ChargePolicy };

/** What a message came to, for the processor's metrics and log. */
export type IntakeOutcome =
  | "checkout_completed"
  | "status_rejected"
  | "status_duplicate"
  | "chargeback_recorded"
  | "chargeback_duplicate"
  | "chargeback_unmatched"
  | "payout_notified"
  | "webhook_ignored"
  | "payment_confirmed"
  | "payment_hint_ignored"
  | "recurring_recorded"
  | "recurring_ignored"
  | "retried";

export interface IntakeResult {
  readonly outcome: IntakeOutcome;
  readonly work: WorkResult;
}

/**
 * How long a PAYMENT_COMPLETED hint leaves a checkout to its status_url before completing it itself: status_url
 * carries the token (or recurring_id) that retrieve does not, so it must win the ordinary race.
 */
export const STATUS_URL_GRACE_MS = 10 * 60_000;

const finished = (outcome: IntakeOutcome, note: string): IntakeResult => ({
  outcome,
  work: { kind: "done", note },
});

const retried = (delaySeconds: number, note: string): IntakeResult => ({
  outcome: "retried",
  work: { kind: "retry", delaySeconds: Math.max(1, Math.ceil(delaySeconds)), note },
});

/** Dispatches one intake message by kind; transient trouble comes back as a retry through the queue. */
export function processIntakeMessage(
  message: IntakeMessage,
  receiveCount: number,
  deps: IntakeDeps,
): Promise<IntakeResult> {
  switch (message.kind) {
    case "status":
      return processStatusCallback(message.query, receiveCount, deps);
    case "gateway":
      return processGatewayWebhook(message, receiveCount, deps);
    case "partner":
      return processPaymentHint(message, receiveCount, deps);
    case "recurring":
      return processRecurringNotice(message, receiveCount, deps);
  }
}

/** status_url: verify first (completeCheckout); a query that fails verify changes nothing. */
async function processStatusCallback(
  query: string,
  receiveCount: number,
  deps: IntakeDeps,
): Promise<IntakeResult> {
  const completion = await completeCheckout(query, deps);
  switch (completion.kind) {
    case "retry":
      return retried(
        retryDelaySeconds(deps.policy, receiveCount),
        `verify unavailable: ${completion.reason}`,
      );
    case "rejected":
      return finished("status_rejected", completion.reason);
    case "recorded":
      return finished(
        "status_duplicate",
        `checkout ${completion.subscription.subscription_id}: already recorded`,
      );
    default:
      return finished(
        "checkout_completed",
        `checkout ${completion.subscription.subscription_id}: ${completion.kind}`,
      );
  }
}

type GatewayMessage = Extract<IntakeMessage, { kind: "gateway" }>;

async function processGatewayWebhook(
  message: GatewayMessage,
  receiveCount: number,
  deps: IntakeDeps,
): Promise<IntakeResult> {
  if (message.type === "CHARGEBACK") return recordChargeback(message, receiveCount, deps);
  if (message.type.startsWith("PAYOUT_")) return finished("payout_notified", `${message.type} received`);
  return finished("webhook_ignored", `webhook type ${message.type} is not handled`);
}

/**
 * CHARGEBACK: the charge is found by its order_id (our order ids name their ledger line) and must be a succeeded
 * charge with the webhook's transaction_id; each status is recorded once (disputes.ts). A write that lost a race is
 * tried again through the queue, so a status arriving at the same time as another is not dropped. A line of ours whose
 * outcome is still open (an answer lost, not yet swept) is settled by retrieve first (settledByChargeback); while the
 * gateway cannot show its sale yet, the chargeback is tried again through the queue. A charge we cannot find (another
 * system's order, a gateway-managed recurring order) is reported for a human.
 */
async function recordChargeback(
  message: GatewayMessage,
  receiveCount: number,
  deps: IntakeDeps,
): Promise<IntakeResult> {
  const key = message.order_id === undefined ? undefined : attemptKeyOf(message.order_id);
  const found = key && (await deps.repository.getAttempt(key));
  const charge = found && (await settledByChargeback(found, deps));
  if (charge !== undefined && OPEN_ATTEMPT_STATUSES.includes(charge.status))
    return retried(
      retryDelaySeconds(deps.policy, receiveCount),
      `charge ${charge.order_id} is not settled yet (${charge.status}): its chargeback waits for it`,
    );
  const sameCharge =
    charge?.status === "succeeded" &&
    message.transaction_id !== undefined &&
    charge.transaction_id === message.transaction_id;
  if (!charge || !sameCharge) {
    return finished(
      "chargeback_unmatched",
      `no succeeded charge for order ${message.order_id ?? "(none)"} and transaction ${message.transaction_id ?? "(none)"}`,
    );
  }
  const report = { ...message.chargeback, chargeback_id: message.chargeback_id };
  const recorded = await recordChargebackReport(charge, report, new Date(message.received_at), deps);
  switch (recorded.kind) {
    case "recorded":
      return finished("chargeback_recorded", `charge ${charge.order_id} disputed: ${recorded.status}`);
    case "duplicate":
      return finished(
        "chargeback_duplicate",
        `charge ${charge.order_id} already disputed with status ${recorded.status}`,
      );
    case "no_subscription":
      return finished("chargeback_unmatched", `no subscription for order ${charge.order_id}`);
    case "raced":
      return retried(
        retryDelaySeconds(deps.policy, receiveCount),
        `charge ${charge.order_id} changed while recording its chargeback`,
      );
  }
}

/**
 * A signed chargeback proves its order was sold: a line of ours still open (its answer lost, not yet swept) is settled
 * now, by retrieve, as the attempt sweep would — closed paid when the gateway shows the sale, never voided on the
 * chargeback's word (that is left to the sweep after the in-flight window). The line as it then stands.
 */
async function settledByChargeback(line: ChargeAttempt, deps: IntakeDeps): Promise<ChargeAttempt> {
  if (!OPEN_ATTEMPT_STATUSES.includes(line.status)) return line;
  const [sale, subscription] = await Promise.all([
    deps.gateway.findOrder(line),
    deps.repository.getSubscription(line.subscription_id),
  ]);
  if (sale.kind !== "success" || sale.value.state !== "paid" || subscription === undefined) return line;
  await closeAttempt(
    subscription,
    line,
    { status: "succeeded", transaction_id: sale.value.transaction_id },
    deps,
  );
  return (await deps.repository.getAttempt(line)) ?? line;
}

type PartnerMessage = Extract<IntakeMessage, { kind: "partner" }>;

/**
 * PAYMENT_COMPLETED is unsigned: a hint, never evidence. It counts only when (1) it names, as invoice number, the
 * order of a window checkout of ours still waiting for its result (period-0 attempt open or voided, subscription
 * pending), (2) status_url has had STATUS_URL_GRACE_MS to arrive, and (3) retrieve by that order_id finds a SALE
 * whose transaction_id is the event's. Then the checkout completes as the attempt sweep would complete it (without the
 * token, which only status_url carries). Anything else — an unknown order, an order the charge engine owns, a
 * settled checkout, no sale at the gateway — changes nothing and costs no gateway call unless (1) holds.
 */
async function processPaymentHint(
  message: PartnerMessage,
  receiveCount: number,
  deps: IntakeDeps,
): Promise<IntakeResult> {
  const ignored = (note: string) => finished("payment_hint_ignored", note);
  const key = message.order_id === undefined ? undefined : attemptKeyOf(message.order_id);
  if (key?.period !== 0 || message.transaction_id === undefined) return ignored("names no checkout of ours");
  const [attempt, subscription] = await Promise.all([
    deps.repository.getAttempt(key),
    deps.repository.getSubscription(key.subscription_id),
  ]);
  const waiting =
    attempt !== undefined &&
    (OPEN_ATTEMPT_STATUSES.includes(attempt.status) || attempt.status === "voided") &&
    subscription?.status === "pending" &&
    subscription.period === 0;
  if (!attempt || !subscription || !waiting) return ignored("no checkout waiting for this order");

  const waitMs = Date.parse(message.received_at) + STATUS_URL_GRACE_MS - deps.clock.now().getTime();
  if (waitMs > 0) return retried(waitMs / 1000, `leaving ${attempt.order_id} to status_url for now`);

  const found = await deps.gateway.findOrder(attempt);
  if (found.kind === "unavailable" || found.kind === "unknown") {
    return retried(retryDelaySeconds(deps.policy, receiveCount), `retrieve unavailable: ${found.reason}`);
  }
  const confirmed =
    found.kind === "success" &&
    found.value.state === "paid" &&
    found.value.transaction_id === message.transaction_id;
  if (!confirmed) return ignored(`retrieve does not confirm a sale of ${attempt.order_id}`);
  await recordFirstPayment({ subscription, attempt }, { transaction_id: found.value.transaction_id }, deps);
  return finished("payment_confirmed", `checkout ${subscription.subscription_id} completed by retrieve`);
}

type RecurringMessage = Extract<IntakeMessage, { kind: "recurring" }>;

async function processRecurringNotice(
  message: RecurringMessage,
  receiveCount: number,
  deps: IntakeDeps,
): Promise<IntakeResult> {
  const result = await recordRecurringCharge(message, deps);
  switch (result.kind) {
    case "retry":
      return retried(retryDelaySeconds(deps.policy, receiveCount), `retrieve unavailable: ${result.reason}`);
    case "recorded":
      return finished("recurring_recorded", `recurring charge ${message.order_id}: ${result.attempt.status}`);
    case "duplicate":
      return finished("recurring_ignored", `recurring charge ${message.order_id} already recorded`);
    case "ignored":
      return finished("recurring_ignored", result.reason);
  }
}
