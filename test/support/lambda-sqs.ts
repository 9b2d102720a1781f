import { ReceiveMessageCommand, type SQSClient } from "@aws-sdk/client-sqs";
import type { SQSEvent, SQSRecord } from "aws-lambda";
import { z } from "zod";

const receivedMessage = z.object({
  MessageId: z.string(),
  ReceiptHandle: z.string(),
  Body: z.string(),
  MD5OfBody: z.string().default(""),
  Attributes: z.looseObject({
    ApproximateReceiveCount: z.string(),
    SentTimestamp: z.string().default("0"),
    SenderId: z.string().default("local"),
    ApproximateFirstReceiveTimestamp: z.string().default("0"),
  }),
});

/**
 * What Lambda's SQS event source mapping would deliver: messages really received from the queue (so their receipt
 * handles and receive counts are the queue's own), in the Lambda event shape. They stay in flight until deleted.
 */
export async function receiveLambdaEvent(
  client: SQSClient,
  queueUrl: string,
  queueArn = "arn:aws:sqs:us-east-1:000000000000:charge-work",
): Promise<SQSEvent> {
  const reply = await client.send(
    new ReceiveMessageCommand({
      QueueUrl: queueUrl,
      MaxNumberOfMessages: 10,
      MessageSystemAttributeNames: ["All"],
      // local-aws-sqs reads only the deprecated name.
      AttributeNames: ["All"],
    }),
  );
  const messages = z.array(receivedMessage).parse(reply.Messages ?? []);
  const Records = messages.map(
    (message): SQSRecord => ({
      messageId: message.MessageId,
      receiptHandle: message.ReceiptHandle,
      body: message.Body,
      attributes: message.Attributes,
      messageAttributes: {},
      md5OfBody: message.MD5OfBody,
      eventSource: "aws:sqs",
      eventSourceARN: queueArn,
      awsRegion: "us-east-1",
    }),
  );
  return { Records };
}
