import { SendMessageBatchCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { type WebhookQueue, webhookDeliveryMessageSchema } from "../../core/ports/webhook-ports";

export interface SqsWebhookQueueOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
}

/** SendMessageBatch takes at most 10 entries. */
const BATCH_SIZE = 10;

/**
 * The webhook delivery queue on SQS: one message per event and endpoint (ids, the endpoint's slot and the event; never
 * a secret), in batches of 10. Any entry SQS did not take fails the send: the bus retries the fan-out, and the
 * deliveries already queued are recognised as the same (their ids come from the bus's entry).
 */
export function createSqsWebhookQueue({ client, queueUrl }: SqsWebhookQueueOptions): WebhookQueue {
  return {
    async send(messages) {
      const bodies = messages.map((message) =>
        JSON.stringify(webhookDeliveryMessageSchema.parse(message, { reportInput: false })),
      );
      for (let start = 0; start < bodies.length; start += BATCH_SIZE) {
        const entries = bodies
          .slice(start, start + BATCH_SIZE)
          .map((body, index) => ({ Id: String(index), MessageBody: body }));
        const reply = await client.send(
          new SendMessageBatchCommand({ QueueUrl: queueUrl, Entries: entries }),
        );
        const failed = reply.Failed ?? [];
        if (failed.length > 0)
          throw new Error(
            `${failed.length} webhook deliveries were not queued (${failed.map((entry) => entry.Code).join(", ")})`,
          );
      }
    },
  };
}
