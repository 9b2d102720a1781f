import { SendMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import { type IntakeQueue, intakeMessageSchema } from "../../core/ports/intake-messages";

export interface SqsIntakeQueueOptions {
  readonly client: SQSClient;
  readonly queueUrl: string;
}

/**
 * The intake queue on SQS: one SendMessage per delivery (a receiver handles one HTTP request). The message is
 * validated again before it leaves, so nothing but a well-formed intake message (no card data) is ever queued.
 */
export function createSqsIntakeQueue({ client, queueUrl }: SqsIntakeQueueOptions): IntakeQueue {
  return {
    async send(message) {
      const body = JSON.stringify(intakeMessageSchema.parse(message, { reportInput: false }));
      await client.send(new SendMessageCommand({ QueueUrl: queueUrl, MessageBody: body }));
    },
  };
}
