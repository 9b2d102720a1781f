import { setTimeout as sleep } from "node:timers/promises";
import { z } from "zod";
import { DEFAULT_CHARGE_POLICY } from "../../functions/core/base/charge-policy";
import { approximateMessageCount } from "../aws/sqs-emulator";
import { deliverBatch } from "../lambda/event-source-mapping";
import { scheduledEvent } from "../lambda/lambda-context";
import type { LambdaFunctions } from "../lambda/lambda-functions";
import { pendingOutboxes } from "../lambda/pending-outboxes";
import { receiveLambdaEvent } from "../lambda/sqs-lambda-event";
import type { LocalTableStream } from "../lambda/table-stream";
import type { BillingStack } from "../stack/billing-stack";
import { isSimulatedCrash } from "../stack/crash-injection";
import type { LocalStack } from "../stack/local-stack";

// How the chaos run lets its work finish: the clock stepped and the queues drained — the charge queue by workers that
// crash, the open attempts by the sweep, the outboxes by the table stream, the webhooks by their retries — until
// nothing is left.

const SETTLE_ROUNDS = 30;
/** Records per process-charges batch (the function table's batch size). */
const WORKER_BATCH_SIZE = 10;
/** The retry window (3 days) in hours: the clock runs on at most this long for the last retries. */
const WEBHOOK_SETTLE_HOURS = 72;
/** Longer than the delivery queue's visibility timeout (30 s), which runs in real time. */
const WEBHOOK_SETTLE_REAL_MS = 40_000;

/**
 * Workers drain the queue (crashing as they go), then time passes beyond the in-flight window and the attempt sweep
 * runs (crashing too, and run again as the next schedule would): until nothing is open and nothing is queued.
 */
export async function settleEverything(
  local: LocalStack,
  functions: { readonly worker: LambdaFunctions; readonly attemptSweep: LambdaFunctions },
  workers: number,
): Promise<void> {
  const { stack } = local;
  for (let round = 0; round < SETTLE_ROUNDS; round += 1) {
    await Promise.all(
      Array.from({ length: workers }, () => drainWaitingForInFlight(stack, functions.worker)),
    );
    await local.setClock(
      new Date(local.clock.now().getTime() + DEFAULT_CHARGE_POLICY.inflightWindowMs + 60_000),
    );
    let open = 0;
    for (;;) {
      try {
        const swept = attemptSweepReport.parse(
          await functions.attemptSweep.invoke(
            "sweep-attempts",
            scheduledEvent(stack.clock.now().toISOString()),
          ),
        );
        open = swept.examined + swept.refunds.examined;
        break;
      } catch (error) {
        if (!isSimulatedCrash(error)) throw error;
      }
    }
    const queued = await approximateMessageCount(stack.sqs.client, stack.chargeQueue.queueUrl);
    if (open === 0 && queued === 0) return;
  }
}

/** What the chaos run reads of the attempt sweep's answer. */
const attemptSweepReport = z.object({
  examined: z.number(),
  refunds: z.object({ examined: z.number() }),
});

/**
 * As Lambda's event source mapping: batches received from the charge queue, process-charges invoked with each, the
 * records it did not report as failures deleted; until the queue holds nothing at all, waiting out messages that are
 * invisible (crashed, retrying).
 */
async function drainWaitingForInFlight(stack: BillingStack, functions: LambdaFunctions): Promise<void> {
  const { client } = stack.sqs;
  const { queueUrl } = stack.chargeQueue;
  for (;;) {
    const event = await receiveLambdaEvent(client, queueUrl, WORKER_BATCH_SIZE);
    if (event.Records.length > 0) {
      await deliverBatch(client, queueUrl, event, (batch) => functions.invoke("process-charges", batch));
      continue;
    }
    if ((await approximateMessageCount(client, queueUrl)) === 0) return;
    await sleep(100);
  }
}

/**
 * The run's last deliveries, once the charges have settled: the gateway's held webhooks, the outboxes, our webhooks
 * (to the end of their retries) and what the bus's rules started. Answers the hours the clock ran on for the webhooks.
 */
export async function settleDeliveries(local: LocalStack, delivery: LocalTableStream): Promise<number> {
  const { stack } = local;
  // A webhook the out-of-order fault still holds would never be sent: the gateway's re-sends stand in for it.
  await stack.sandbox.deliveries.flushHeld();
  await stack.sandbox.deliveries.settled();
  await local.advanceClock("PT0S");
  await deliverAll(delivery, stack);
  const webhookSettleHours = await settleWebhooks(local, delivery);
  await delivery.stop();
  // What the bus's rules started (the customer mails) runs to its end.
  await stack.eventBridge.settled();
  return webhookSettleHours;
}

/**
 * The webhooks' retries wait on the local clock (1 minute, doubling): the clock runs on an hour at a time, each
 * retry made at its own time and what it brings delivered, until nothing is left on the delivery queue — at most
 * the retry window; then, for a little real time, what a failed invocation left to come back after the queue's
 * visibility timeout (real seconds). Answers the hours the clock ran on.
 */
async function settleWebhooks(local: LocalStack, delivery: LocalTableStream): Promise<number> {
  const { stack } = local;
  const deadline = performance.now() + WEBHOOK_SETTLE_REAL_MS;
  for (let hours = 0; ; ) {
    await deliverAll(delivery, stack);
    await stack.eventBridge.settled();
    await local.advanceClock("PT0S");
    const left = await approximateMessageCount(stack.sqs.client, stack.webhookQueue.queueUrl);
    if (left === 0) return hours;
    if (hours < WEBHOOK_SETTLE_HOURS) {
      await local.advanceClock("PT1H");
      hours += 1;
    } else if (performance.now() < deadline) await sleep(1000);
    else return hours;
  }
}

/** Delivers until no outbox holds events; a pass that crashed leaves some for the next (a bounded number). */
async function deliverAll(delivery: LocalTableStream, stack: BillingStack): Promise<void> {
  for (let pass = 0; pass < SETTLE_ROUNDS; pass += 1) {
    await delivery.drain();
    if ((await pendingOutboxes(stack.delivery.repository)).length === 0) return;
  }
}
