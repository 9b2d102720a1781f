import type { BillingEvent } from "../core/base/events";
import type { GatewayOutcome } from "../core/base/outcome";
import type { ChargeDeps } from "../core/charging/charge-engine";
import type { Counter } from "./metric-counts";
import { logger } from "./observability";
import type { RecordResult } from "./sqs-work-results";

/** What became of charges: from the events the core's writes announced (each once per transition) and REBILL outcomes. */
export const CHARGE_METRICS = [
  "ChargeSucceeded",
  "ChargeDeclined",
  /** charge.failed for another reason than a decline (the gateway refused the request as invalid, no token). */
  "ChargeRejected",
  /** REBILL answered nothing usable after sending: retrieve settles it later. */
  "ChargeUnknown",
  /** REBILL refused before the gateway took it (5xx, throttling, connection refused): retried through the queue. */
  "GatewayUnavailable",
  "SubscriptionPastDue",
  "SubscriptionCanceled",
] as const;
export type ChargeMetric = (typeof CHARGE_METRICS)[number];

function eventMetric(event: BillingEvent): ChargeMetric | undefined {
  switch (event.type) {
    case "charge.succeeded":
      return "ChargeSucceeded";
    case "charge.failed":
      return event.reason === "declined" ? "ChargeDeclined" : "ChargeRejected";
    case "subscription.past_due":
      return "SubscriptionPastDue";
    case "subscription.canceled":
      return "SubscriptionCanceled";
    default:
      return undefined;
  }
}

function outcomeMetric(outcome: GatewayOutcome<unknown>): ChargeMetric | undefined {
  if (outcome.kind === "unknown") return "ChargeUnknown";
  return outcome.kind === "unavailable" ? "GatewayUnavailable" : undefined;
}

/**
 * The charge engine's ports, observed: the events of the writes that applied (each transition's once) and REBILL
 * outcomes are counted as they happen.
 */
export function observeCharges(deps: ChargeDeps, counts: Counter<ChargeMetric>): ChargeDeps {
  const count = (metric: ChargeMetric | undefined) => {
    if (metric !== undefined) counts.add(metric);
  };
  const countApplied = (applied: boolean, events: readonly BillingEvent[] = []) => {
    if (applied) for (const event of events) count(eventMetric(event));
    return applied;
  };
  const { repository } = deps;
  return {
    ...deps,
    repository: {
      ...repository,
      updateSubscription: async (id, update) =>
        countApplied(await repository.updateSubscription(id, update), update.events),
      updateAttempt: async (key, update) =>
        countApplied(await repository.updateAttempt(key, update), update.events),
    },
    gateway: {
      findOrder: (order) => deps.gateway.findOrder(order),
      findRefund: (refund) => deps.gateway.findRefund(refund),
      deleteToken: (tokenId) => deps.gateway.deleteToken(tokenId),
      refund: (request) => deps.gateway.refund(request),
      async rebill(request) {
        const outcome = await deps.gateway.rebill(request);
        count(outcomeMetric(outcome));
        return outcome;
      },
    },
  };
}

/** Queue messages that were not acknowledged. */
export const MESSAGE_METRICS = [
  "ChargeMessagesRetried",
  "ChargeMessagesMalformed",
  "ChargeMessagesFailed",
] as const;
export type MessageMetric = (typeof MESSAGE_METRICS)[number];

/** The metric names and log label of one queue's unacknowledged records. */
export interface QueueResultNames<N extends string> {
  readonly retried: N;
  readonly malformed: N;
  readonly failed: N;
  /** What a record is, in log lines ("charge message"). */
  readonly label: string;
}

/** Logs every record that stays on the queue (why, never the body) and counts it by kind. */
export function reportQueueResults<N extends string>(
  results: readonly RecordResult[],
  counts: Counter<N>,
  names: QueueResultNames<N>,
): void {
  for (const result of results) {
    switch (result.kind) {
      case "done":
        break;
      case "retry":
        counts.add(names.retried);
        logger.info(`${names.label} retried`, { ...result });
        break;
      case "malformed":
        counts.add(names.malformed);
        logger.error(`malformed ${names.label} left for the DLQ`, { ...result });
        break;
      case "error":
        counts.add(names.failed);
        logger.error(`${names.label} failed`, { messageId: result.messageId, error: result.error });
        break;
    }
  }
}

/** The charge queue's records that stay on it. */
export function reportRecordResults(results: readonly RecordResult[], counts: Counter<MessageMetric>): void {
  reportQueueResults(results, counts, {
    retried: "ChargeMessagesRetried",
    malformed: "ChargeMessagesMalformed",
    failed: "ChargeMessagesFailed",
    label: "charge message",
  });
}
