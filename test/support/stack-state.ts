import { createHash } from "node:crypto";
import { setTimeout as sleep } from "node:timers/promises";
import { ListQueuesCommand } from "@aws-sdk/client-sqs";
import { tableSources } from "../../local/audit/leak-scan";
import { approximateMessageCount } from "../../local/aws/sqs-emulator";
import { pendingOutboxes } from "../../local/lambda/pending-outboxes";
import type { BillingStack } from "../../local/stack/billing-stack";

/**
 * Everything a request could change in a billing stack, comparable with toEqual: each table item (its keys and a
 * digest of the whole item, so a 100 KB item does not flood a diff), the stored messages of every queue and DLQ, and
 * the sandbox ledger's revision (bumped by every gateway-side change).
 */
export interface StackState {
  readonly items: readonly string[];
  readonly queues: Readonly<Record<string, number>>;
  readonly sandboxRevision: number;
}

export async function stackState(stack: BillingStack): Promise<StackState> {
  const client = stack.sqs.client;
  const [sources, queues] = await Promise.all([
    tableSources(stack),
    client
      .send(new ListQueuesCommand({}))
      .then(({ QueueUrls = [] }) =>
        Promise.all(
          QueueUrls.toSorted().map(async (url) => [
            url.slice(url.lastIndexOf("/") + 1),
            await approximateMessageCount(client, url),
          ]),
        ),
      ),
  ]);
  const items = sources
    .map(({ where, text }) => `${where} ${createHash("sha256").update(text).digest("hex").slice(0, 16)}`)
    .sort();
  return { items, queues: Object.fromEntries(queues), sandboxRevision: stack.sandbox.state.revision };
}

/**
 * Waits until the work queues hold nothing (the event source mappings processed and deleted every message) and no
 * outbox holds events (the local table stream delivered them), or `timeoutMs` passes: a message left waiting out a
 * retry then shows in the next stackState.
 */
export async function settleWork(stack: BillingStack, timeoutMs = 10_000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  const urls = [stack.chargeQueue.queueUrl, stack.intakeQueue.queueUrl];
  while (Date.now() < deadline) {
    const counts = await Promise.all(urls.map((url) => approximateMessageCount(stack.sqs.client, url)));
    const settled =
      counts.every((count) => count === 0) && (await pendingOutboxes(stack.delivery.repository)).length === 0;
    if (settled) return;
    await sleep(25);
  }
}
