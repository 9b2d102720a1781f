import {
  ChangeMessageVisibilityBatchCommand,
  GetQueueAttributesCommand,
  ListMessageMoveTasksCommand,
  type ListMessageMoveTasksResultEntry,
  SendMessageBatchCommand,
  type SQSClient,
  StartMessageMoveTaskCommand,
} from "@aws-sdk/client-sqs";
import { deleteBatch, receiveBatch } from "../functions/adapters/aws/sqs-poller";
import type { SqsRecord } from "../functions/lambda/sqs-work-results";
import { CliError } from "./cli-io";
import type { Progress } from "./progress";

// A DLQ's messages back to their work queue. Where SQS offers it, by a message move task (StartMessageMoveTask:
// SQS moves them itself, and ListMessageMoveTasks tells how far it is); where it does not (an emulator without the
// action), by receive, send and delete from here. Either is safe: every step of the consumers is a conditional
// write or de-duplicated.

export interface QueuePair {
  /** The work queue the messages go back to. */
  readonly source: string;
  /** Its dead-letter queue. */
  readonly dlq: string;
}

export interface RedriveResult {
  readonly method: "message_move_task" | "receive_send_delete";
  readonly moved: number;
  /** Still on the DLQ: SQS did not accept them, or the move task stopped before them. */
  readonly not_moved: number;
  /** Sent but not deleted: a copy stays on the DLQ (receive, send, delete only). */
  readonly not_deleted: number;
  /** Why the move task stopped short (FAILED or CANCELLED), as SQS says. */
  readonly failure?: string;
}

export interface RedriveOptions {
  readonly progress: Progress;
  /** How long to wait between two ListMessageMoveTasks. */
  readonly pollMs: number;
  /** ReceiveMessage's WaitTimeSeconds in the fallback (short polls may answer empty while messages wait). */
  readonly waitSeconds: number;
}

/** Error names of an action the service does not offer: AWS's, SQS's own, ElasticMQ's and LocalStack's. */
const UNSUPPORTED_NAMES = new Set([
  "UnknownOperationException",
  "UnsupportedOperation",
  "AWS.SimpleQueueService.UnsupportedOperation",
  "InvalidAction",
  "NotImplemented",
]);

/** Whether `error` says the service has no such action (a 501 Not Implemented says so whatever its name). */
export function isUnsupportedOperation(error: unknown): boolean {
  if (!(error instanceof Error)) return false;
  const status = (error as { $metadata?: { httpStatusCode?: number } }).$metadata?.httpStatusCode;
  return UNSUPPORTED_NAMES.has(error.name) || status === 501;
}

/** Whether `error` is a refusal of the operator's credentials (an IAM policy without the action). */
const isAccessDenied = (error: unknown) => error instanceof Error && /AccessDenied/.test(error.name);

async function arnOf(sqs: SQSClient, queueUrl: string): Promise<string> {
  const reply = await sqs.send(
    new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ["QueueArn"] }),
  );
  const arn = reply.Attributes?.QueueArn;
  if (arn === undefined) throw new Error(`SQS gave no QueueArn for ${queueUrl}`);
  return arn;
}

/** The DLQ's most recent move task (at most one runs per queue; one that has ended has no TaskHandle). */
async function latestTask(
  sqs: SQSClient,
  dlqArn: string,
): Promise<ListMessageMoveTasksResultEntry | undefined> {
  const reply = await sqs.send(new ListMessageMoveTasksCommand({ SourceArn: dlqArn, MaxResults: 10 }));
  return (reply.Results ?? []).toSorted((a, b) => (b.StartedTimestamp ?? 0) - (a.StartedTimestamp ?? 0))[0];
}

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Polls of a started task SQS does not list yet before giving up (its listing may lag the start). */
const UNLISTED_POLLS = 30;

/**
 * Starts a move task from the DLQ to the work queue (or follows the one already running there) and polls it until
 * it has ended; undefined when the service offers no move tasks or the operator may not start one.
 */
async function redriveByMoveTask(
  sqs: SQSClient,
  queues: QueuePair,
  { progress, pollMs }: RedriveOptions,
): Promise<RedriveResult | undefined> {
  let dlqArn: string;
  /** Tasks started at or before this are earlier runs' (SQS keeps a few ended tasks listed). */
  let earlier: number;
  try {
    const [sourceArn, dlq] = await Promise.all([arnOf(sqs, queues.source), arnOf(sqs, queues.dlq)]);
    dlqArn = dlq;
    const latest = await latestTask(sqs, dlqArn);
    if (latest?.Status === "RUNNING") {
      progress.note("a message move task already runs on this DLQ: following it");
      earlier = (latest.StartedTimestamp ?? 0) - 1;
    } else {
      earlier = latest?.StartedTimestamp ?? -1;
      await sqs.send(new StartMessageMoveTaskCommand({ SourceArn: dlqArn, DestinationArn: sourceArn }));
    }
  } catch (error) {
    const name = error instanceof Error ? error.name : String(error);
    if (isUnsupportedOperation(error)) {
      progress.note(
        `SQS here has no StartMessageMoveTask (${name}): moving the messages by receive, send and delete`,
      );
      return undefined;
    }
    if (isAccessDenied(error)) {
      progress.note(
        `not allowed to start a message move task (${name}; it needs sqs:StartMessageMoveTask and sqs:ListMessageMoveTasks): moving the messages by receive, send and delete`,
      );
      return undefined;
    }
    throw error;
  }
  for (let unlisted = 0; ; await sleep(pollMs)) {
    const latest = await latestTask(sqs, dlqArn);
    const task = (latest?.StartedTimestamp ?? -1) > earlier ? latest : undefined;
    if (task === undefined) {
      unlisted += 1;
      if (unlisted > UNLISTED_POLLS)
        throw new CliError(
          "SQS started the message move task but does not list it: see the DLQ in the SQS console, then run dlq list",
        );
      continue;
    }
    const moved = task.ApproximateNumberOfMessagesMoved ?? 0;
    const toMove = task.ApproximateNumberOfMessagesToMove ?? 0;
    if (toMove > 0) progress.setTotal(toMove);
    progress.update(moved, `${moved} messages moved`);
    if (task.Status === "RUNNING" || task.Status === "CANCELLING") continue;
    const failure =
      task.Status === "COMPLETED"
        ? undefined
        : `${task.Status}${task.FailureReason ? `: ${task.FailureReason}` : ""}`;
    return {
      method: "message_move_task",
      moved,
      not_moved: failure === undefined ? 0 : Math.max(0, toMove - moved),
      not_deleted: 0,
      ...(failure === undefined ? {} : { failure }),
    };
  }
}

/** Makes received messages visible again at once (listing must not hide them from a redrive or the alarm). */
export async function release(
  sqs: SQSClient,
  queueUrl: string,
  records: readonly SqsRecord[],
): Promise<void> {
  for (let start = 0; start < records.length; start += 10) {
    const entries = records.slice(start, start + 10).map((record, index) => ({
      Id: String(index),
      ReceiptHandle: record.receiptHandle,
      VisibilityTimeout: 0,
    }));
    await sqs.send(new ChangeMessageVisibilityBatchCommand({ QueueUrl: queueUrl, Entries: entries }));
  }
}

/** The DLQ's ApproximateNumberOfMessages, for the bar; undefined when SQS does not tell. */
async function depthOf(sqs: SQSClient, queueUrl: string): Promise<number | undefined> {
  const reply = await sqs
    .send(
      new GetQueueAttributesCommand({ QueueUrl: queueUrl, AttributeNames: ["ApproximateNumberOfMessages"] }),
    )
    .catch(() => undefined);
  const depth = Number(reply?.Attributes?.ApproximateNumberOfMessages);
  return Number.isInteger(depth) ? depth : undefined;
}

/**
 * Receive, send, then delete what was sent. A message SQS did not accept stays on the DLQ (visible again after its
 * visibility timeout). A message received twice (not deleted, or already back) is left alone, and a receive that
 * brings nothing new ends the run.
 */
async function redriveByReceive(
  sqs: SQSClient,
  queues: QueuePair,
  options: RedriveOptions,
): Promise<RedriveResult> {
  const { progress, waitSeconds } = options;
  const depth = await depthOf(sqs, queues.dlq);
  if (depth !== undefined && depth > 0) progress.setTotal(depth);
  const seen = new Set<string>();
  const result = { moved: 0, not_moved: 0, not_deleted: 0 };
  for (;;) {
    const received = await receiveBatch(sqs, queues.dlq, 10, waitSeconds);
    await release(
      sqs,
      queues.dlq,
      received.filter((record) => seen.has(record.messageId)),
    );
    const batch = received.filter((record) => !seen.has(record.messageId));
    if (batch.length === 0) return { method: "receive_send_delete", ...result };
    for (const record of batch) seen.add(record.messageId);
    const reply = await sqs.send(
      new SendMessageBatchCommand({
        QueueUrl: queues.source,
        Entries: batch.map((record, index) => ({ Id: String(index), MessageBody: record.body })),
      }),
    );
    const unsent = (reply.Failed ?? []).map((entry) => ({
      itemIdentifier: batch[Number(entry.Id)]?.messageId ?? "unknown",
    }));
    // Deleted only once sent: a failure in between leaves a copy on both queues, which the consumers tolerate.
    const notDeleted = await deleteBatch(sqs, queues.dlq, batch, unsent);
    result.moved += batch.length - unsent.length;
    result.not_moved += unsent.length;
    result.not_deleted += notDeleted.length;
    if (depth !== undefined && seen.size > depth) progress.setTotal(seen.size);
    progress.update(seen.size, `${result.moved} messages moved`);
  }
}

/** Moves every message of the DLQ back to its work queue: by a move task where SQS offers one, else from here. */
export async function redriveDlq(
  sqs: SQSClient,
  queues: QueuePair,
  options: RedriveOptions,
): Promise<RedriveResult> {
  return (await redriveByMoveTask(sqs, queues, options)) ?? redriveByReceive(sqs, queues, options);
}
