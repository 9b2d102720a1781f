import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { dynamoDbDocumentClientOf } from "../../functions/adapters/aws/dynamodb-client";
import { receiveBatch } from "../../functions/adapters/aws/sqs-poller";
import {
  recordOf,
  WEBHOOK_DELIVERY_SK_PREFIX,
  webhookDeliveryPartition,
} from "../../functions/adapters/table/billing-table";
import { periodStartOf } from "../../functions/core/base/billing-period";
import { outboxEventSchema } from "../../functions/core/base/events";
import type { Subscription } from "../../functions/core/base/model";
import { attemptKeyOf } from "../../functions/core/base/order-id";
import { parseChargeMessage } from "../../functions/core/ports/queues";
import { type WebhookDelivery, webhookDeliverySchema } from "../../functions/core/ports/webhook-ports";
import { mapConcurrently } from "../../functions/shared/map-concurrently";
import { TEST_MERCHANT } from "../../sandbox/state/merchant-config";
import { type LeakSource, leakSecretsOf, scanForLeaks, stackLeakSources } from "../audit/leak-scan";
import { compareLedgers } from "../audit/ledger-comparison";
import { auditStackMoney } from "../audit/money-audit";
import { realFormCounts } from "../audit/real-forms";
import { approximateMessageCount } from "../aws/sqs-emulator";
import { pendingOutboxContents } from "../lambda/pending-outboxes";
import type { BillingStack } from "../stack/billing-stack";
import type { LocalStack } from "../stack/local-stack";
import { accountForEvents } from "./event-accounting";
import { accountForMails } from "./mail-accounting";
import { CARD_CVC } from "./sign-ups";
import { accountForWebhooks, type ReceiverLog } from "./webhook-accounting";

// The chaos run's audits once everything has settled: our ledger against the gateway's, every period paid or in
// dunning with a reason, every dead letter explained, every chargeback recorded, the money, the events, the mails and
// the webhooks accounted for, and no secret anywhere the run left a trace.

export async function checkInvariants(
  stack: BillingStack,
  ids: readonly string[],
  receivers: readonly ReceiverLog[],
) {
  const comparison = await compareLedgers(stack, ids);
  const now = stack.clock.now();
  const subscriptions = await mapConcurrently(ids, 8, (id) => stack.services.repository.getSubscription(id));
  const lostPeriods: string[] = [];
  const checkoutsLeftPending: string[] = [];
  let periodsDue = 0;
  let pastDue = 0;
  let canceled = 0;
  for (const [index, subscription] of subscriptions.entries()) {
    if (subscription === undefined) {
      lostPeriods.push(`${ids[index]}: subscription missing`);
      continue;
    }
    const due = periodsStartedBy(subscription, now);
    periodsDue += due;
    if (subscription.status === "canceled") canceled += 1;
    if (subscription.status === "past_due") pastDue += 1;
    const lost = lostPeriodOf(subscription, due);
    if (lost !== undefined) lostPeriods.push(lost);
    const end = subscription.checkout_expires_at;
    if (subscription.status === "pending" && end !== undefined && Date.parse(end) < now.getTime())
      checkoutsLeftPending.push(`${subscription.subscription_id}: pending, its checkout ended ${end}`);
  }
  const attempts = (await mapConcurrently(ids, 8, (id) => stack.services.repository.listAttempts(id))).flat();
  const byOrder = new Map(attempts.map((attempt) => [attempt.order_id, attempt]));
  const ours = new Set(ids);
  const chargedBack = [...stack.sandbox.state.payments.payments()].filter(
    (payment) =>
      payment.chargeback !== undefined && ours.has(attemptKeyOf(payment.orderId)?.subscription_id ?? ""),
  );
  const undelivered = (await pendingOutboxContents(stack.delivery.repository)).reduce(
    (sum, { events }) => sum + events.length,
    0,
  );
  const delivered = stack.eventBridge.entries.map((entry) =>
    outboxEventSchema.parse(JSON.parse(entry.Detail)),
  );
  return {
    money: await auditStackMoney(stack, ids, delivered),
    events: accountForEvents({
      details: stack.eventBridge.entries.map((entry) => entry.Detail),
      subscriptions: subscriptions.filter((subscription) => subscription !== undefined),
      attempts,
      undelivered,
    }),
    mails: accountForMails({
      details: stack.eventBridge.entries.map((entry) => entry.Detail),
      mails: stack.ses.mails,
      attempts,
      subscriptions: subscriptions.filter((subscription) => subscription !== undefined),
      deadLetters: stack.eventBridge.deadLetters.map(
        ({ event }) => outboxEventSchema.parse(event.detail).event_id,
      ),
    }),
    webhooks: accountForWebhooks({
      details: stack.eventBridge.entries.map((entry) => entry.Detail),
      receivers,
      deliveries: (
        await Promise.all(receivers.map((receiver) => deliveriesOf(stack, receiver.endpointId)))
      ).flat(),
      queued: await approximateMessageCount(stack.sqs.client, stack.webhookQueue.queueUrl),
      deadLetters: await approximateMessageCount(stack.sqs.client, stack.webhookQueue.dlqUrl),
      fanOutsGivenUp: stack.eventBridge.deadLetters
        .filter(({ rule }) => rule === "queue-webhooks")
        .map(({ event }) => outboxEventSchema.parse(event.detail).event_id),
    }),
    chargebacks: chargedBack.length,
    // Each chargeback must be recorded here at the status the gateway last reported (reported, then deducted).
    unrecordedChargebacks: chargedBack
      .filter((payment) => byOrder.get(payment.orderId)?.dispute?.status !== payment.chargeback?.status)
      .map(
        (payment) =>
          `${payment.orderId}: ${payment.chargeback?.status} at the gateway, ` +
          `${byOrder.get(payment.orderId)?.dispute?.status ?? "not disputed"} here`,
      ),
    periodsDue,
    charged: comparison.ours.succeeded,
    declined: attempts.filter((attempt) => attempt.status === "declined").length,
    pastDue,
    canceled,
    doubleCharges: comparison.doubleCharges,
    lostPeriods,
    checkoutsLeftPending,
    mismatches: comparison.mismatches,
    liveTokens: comparison.liveTokens,
    deadLetters: await explainDeadLetters(stack),
    realForms: realFormCounts(
      stack.sandbox,
      attempts.filter((attempt) => attempt.status === "voided").length,
    ),
  };
}

/** Periods whose start is at or before `now`: each must be paid, or the subscription in dunning with a reason. */
export function periodsStartedBy(subscription: Subscription, now: Date): number {
  let periods = 0;
  while (periodStartOf(subscription, periods) <= now) periods += 1;
  return periods;
}

export function lostPeriodOf(subscription: Subscription, due: number): string | undefined {
  const { subscription_id: id, status, period } = subscription;
  if (status === "active" && period < due) return `${id}: period ${period} due, still active and unpaid`;
  if (status === "past_due" && subscription.status_reason === undefined && subscription.dunning === undefined)
    return `${id}: past_due without a reason`;
  if (status === "canceled" && subscription.status_reason === undefined)
    return `${id}: canceled without a reason`;
  if (status === "pending") return `${id}: still pending`;
  if (status === "paused") return `${id}: still paused, though every pause was resumed`;
  return undefined;
}

/**
 * What an unpaid period's current ledger line stands at, for whoever reads an unexplained dead letter: the state that
 * kept every worker from paying it.
 */
async function currentLineOf(stack: BillingStack, subscription: Subscription): Promise<string> {
  const { subscription_id, period, attempt } = subscription;
  const line = await stack.services.repository.getAttempt({ subscription_id, period, attempt });
  if (line === undefined) return "no line claimed";
  const lease = line.lease_until === undefined ? "" : `, lease until ${line.lease_until}`;
  return `line ${line.order_id} ${line.status} for ${line.amount} ${line.currency}${lease}`;
}

/**
 * Each message of the DLQ with why it is there; one that still stands for unpaid, undunned work is unexplained, with
 * its period's current line (messages alike are counted once, with their number).
 */
async function explainDeadLetters(stack: BillingStack) {
  const explained: string[] = [];
  const unexplained = new Map<string, number>();
  const leftUnexplained = (what: string) => unexplained.set(what, (unexplained.get(what) ?? 0) + 1);
  for (;;) {
    const records = await receiveBatch(stack.sqs.client, stack.chargeQueue.dlqUrl);
    if (records.length === 0) break;
    for (const record of records) {
      let message: ReturnType<typeof parseChargeMessage>;
      try {
        message = parseChargeMessage(record.body);
      } catch {
        leftUnexplained(`${record.messageId}: not a charge message`);
        continue;
      }
      const subscription = await stack.services.repository.getSubscription(message.subscription_id);
      const what = `${message.subscription_id}/${message.period}`;
      if (subscription === undefined) leftUnexplained(`${what}: no such subscription`);
      else if (subscription.period > message.period) explained.push(`${what}: already paid (a duplicate)`);
      else if (subscription.status !== "active")
        explained.push(`${what}: ${subscription.status}, in dunning`);
      else leftUnexplained(`${what}: due and unpaid (${await currentLineOf(stack, subscription)})`);
    }
  }
  return {
    explained,
    unexplained: [...unexplained].map(([what, count]) =>
      count === 1 ? what : `${what} (${count} messages)`,
    ),
  };
}

/** Every delivery record of an endpoint (the deliveries route shows the last 50): its partition, page by page. */
async function deliveriesOf(stack: BillingStack, endpointId: string): Promise<WebhookDelivery[]> {
  const client = dynamoDbDocumentClientOf(stack.runtime);
  const deliveries: WebhookDelivery[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: stack.tableName,
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues: {
          ":pk": webhookDeliveryPartition(endpointId),
          ":prefix": WEBHOOK_DELIVERY_SK_PREFIX,
        },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    deliveries.push(...(page.Items ?? []).map((item) => webhookDeliverySchema.parse(recordOf(item))));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return deliveries;
}

/**
 * Card numbers, CVCs, keys or JWTs in the handlers' captured output, the answers the run got, every place of the stack
 * and the outboxes held while the bus was down.
 */
export async function leaksOf(
  local: LocalStack,
  input: {
    readonly output: string;
    readonly answers: readonly string[];
    readonly heldOutboxes: readonly LeakSource[];
  },
) {
  const sources = [
    ...(await stackLeakSources(local.stack, { output: input.output, httpBodies: input.answers })),
    ...input.heldOutboxes,
  ];
  const secrets = leakSecretsOf(TEST_MERCHANT, { merchantApiKeys: [local.apiKey], cvcs: [CARD_CVC] });
  return {
    leaks: scanForLeaks(sources, secrets).map((hit) => `${hit.what} in ${hit.where}`),
    scanned: sources.length,
  };
}
