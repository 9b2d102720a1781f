import type { SQSClient } from "@aws-sdk/client-sqs";
import type { SQSEvent, SQSRecord } from "aws-lambda";
import { receiveBatch } from "../../functions/adapters/aws/sqs-poller";
import { LOCAL_REGION } from "../aws/dynamodb-emulator";

/** The ARN Lambda's records name for a local queue (its URL's last segment is the queue's name). */
export function localQueueArn(queueUrl: string): string {
  return `arn:aws:sqs:${LOCAL_REGION}:000000000000:${queueUrl.slice(queueUrl.lastIndexOf("/") + 1)}`;
}

/**
 * What Lambda's SQS event source mapping would deliver: up to `batchSize` messages really received from the queue
 * (so their receipt handles and receive counts are the queue's own), in the Lambda event shape. They stay in flight
 * until deleted.
 */
export async function receiveLambdaEvent(
  client: SQSClient,
  queueUrl: string,
  batchSize = 10,
): Promise<SQSEvent> {
  const received = await receiveBatch(client, queueUrl, batchSize);
  const Records = received.map(
    (record): SQSRecord => ({
      messageId: record.messageId,
      receiptHandle: record.receiptHandle,
      body: record.body,
      attributes: {
        SentTimestamp: "0",
        SenderId: "local",
        ApproximateFirstReceiveTimestamp: "0",
        ...record.attributes,
      },
      messageAttributes: {},
      md5OfBody: "",
      eventSource: "aws:sqs",
      eventSourceARN: localQueueArn(queueUrl),
      awsRegion: LOCAL_REGION,
    }),
  );
  return { Records };
}
