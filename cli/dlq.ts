import { type Command, Option } from "commander";
import { z } from "zod";
import { sqsClientOf } from "../functions/adapters/aws/sqs-client";
import { receiveBatch } from "../functions/adapters/aws/sqs-poller";
import { intakeQueue } from "../functions/composition/components";
import { environmentSchema } from "../functions/lambda/environment";
import { redactText } from "../functions/lambda/redaction";
import type { SqsRecord } from "../functions/lambda/sqs-work-results";
import { type CommandRunner, emit, parseLimit } from "./cli-io";
import { instantOrDash } from "./dates";
import { type QueuePair, redriveDlq, release } from "./dlq-redrive";
import { withProgress } from "./progress";
import { resolveTarget, type TargetSession, withTarget } from "./target";
import { formatTable, shortUuid } from "./text-table";

// The work queues' dead-letter queues: what process-charges / process-intake / send-webhooks failed maxReceiveCount
// times. Their bodies hold ids and events only (charge, intake and delivery messages), never card data or a webhook
// secret; they are printed redacted all the same.

const QUEUE_NAMES = ["charge", "intake", "webhook"] as const;
type QueueName = (typeof QUEUE_NAMES)[number];

const chargeQueues = environmentSchema.pick({ CHARGE_QUEUE_URL: true }).extend({ CHARGE_DLQ_URL: z.url() });
const intakeQueues = intakeQueue.variables.extend({ INTAKE_DLQ_URL: z.url() });
const webhookQueues = z.object({ WEBHOOK_QUEUE_URL: z.url(), WEBHOOK_DLQ_URL: z.url() });

function queuesOf(session: TargetSession, queue: QueueName): QueuePair {
  if (queue === "charge") {
    const env = session.environment(chargeQueues);
    return { source: env.CHARGE_QUEUE_URL, dlq: env.CHARGE_DLQ_URL };
  }
  if (queue === "intake") {
    const env = session.environment(intakeQueues);
    return { source: env.INTAKE_QUEUE_URL, dlq: env.INTAKE_DLQ_URL };
  }
  const env = session.environment(webhookQueues);
  return { source: env.WEBHOOK_QUEUE_URL, dlq: env.WEBHOOK_DLQ_URL };
}

/** SQS short polls sample a few servers and may answer empty while messages wait; the local emulator is one. */
const waitSecondsOf = (session: TargetSession) => (session.target.kind === "aws" ? 1 : 0);

const redriveOptions = z.object({ queue: z.enum(QUEUE_NAMES) });
const listOptions = redriveOptions.extend({ limit: z.number() });

/** Up to `limit` messages of the queue, received and released. */
async function peek(session: TargetSession, queueUrl: string, limit: number): Promise<SqsRecord[]> {
  const sqs = sqsClientOf(session.runtime);
  const records: SqsRecord[] = [];
  try {
    while (records.length < limit) {
      const batch = await receiveBatch(
        sqs,
        queueUrl,
        Math.min(10, limit - records.length),
        waitSecondsOf(session),
      );
      if (batch.length === 0) break;
      records.push(...batch);
    }
  } finally {
    await release(sqs, queueUrl, records);
  }
  return records;
}

/** A DLQ's message as the CLI shows it: ids and when, the body redacted. */
export interface DlqMessage {
  readonly message_id: string;
  readonly receive_count: number;
  readonly sent_at: string | undefined;
  readonly body: string;
}

/** A DLQ's messages as a table: the message id shortened, the body last, cut to what is left of the width. */
export function messageTable(messages: readonly DlqMessage[]): string {
  return formatTable(
    ["MESSAGE", "RECEIVES", "SENT", { title: "BODY", fit: "cut" }],
    messages.map((message) => [
      shortUuid(message.message_id),
      String(message.receive_count),
      instantOrDash(message.sent_at),
      message.body,
    ]),
  );
}

export function addDlqCommands(program: Command, run: CommandRunner): void {
  const dlq = program.command("dlq").description("dead-letter queues of the work queues");
  const queueOption = () =>
    new Option("--queue <queue>", "which work queue's DLQ").choices(QUEUE_NAMES).default("charge");
  dlq
    .command("list")
    .description("the messages on a dead-letter queue (left there)")
    .addOption(queueOption())
    .option("--limit <n>", "at most this many", parseLimit, 100)
    .action(
      run(async (command, out) => {
        const { queue, limit } = listOptions.parse(command.opts());
        await withTarget(await resolveTarget(command), async (session) => {
          const records = await peek(session, queuesOf(session, queue).dlq, limit);
          const messages: DlqMessage[] = records.map((record) => ({
            message_id: record.messageId,
            receive_count: Number(record.attributes.ApproximateReceiveCount),
            sent_at: sentAt(record),
            body: redactText(record.body),
          }));
          emit(out, { queue, messages }, () => [
            `${messages.length} messages on the ${queue} DLQ`,
            ...(messages.length === 0 ? [] : [messageTable(messages)]),
          ]);
        });
      }),
    );
  dlq
    .command("redrive")
    .description("move every message of a dead-letter queue back to its work queue")
    .addOption(queueOption())
    .action(
      run(async (command, out) => {
        const { queue } = redriveOptions.parse(command.opts());
        await withTarget(await resolveTarget(command), async (session) => {
          const result = await withProgress(out.io, { label: "redriving" }, (progress) =>
            redriveDlq(sqsClientOf(session.runtime), queuesOf(session, queue), {
              progress,
              pollMs: session.target.kind === "aws" ? 1000 : 100,
              waitSeconds: waitSecondsOf(session),
            }),
          );
          if (result.not_moved > 0 || result.not_deleted > 0 || result.failure !== undefined) out.fail();
          const how =
            result.method === "message_move_task" ? "an SQS message move task" : "receive, send, delete";
          emit(out, { queue, ...result }, () => [
            `moved ${result.moved} messages from the ${queue} DLQ to the ${queue} queue (${how})`,
            ...(result.failure === undefined
              ? []
              : [
                  `the move task ended ${result.failure}: run dlq redrive again, or see the DLQ in the SQS console`,
                ]),
            ...(result.not_moved > 0
              ? [`${result.not_moved} stay on the DLQ: see them with dlq list --queue ${queue}`]
              : []),
            ...(result.not_deleted > 0
              ? [
                  `${result.not_deleted} were sent but not deleted: a copy stays on the DLQ (consumers de-duplicate)`,
                ]
              : []),
          ]);
        });
      }),
    );
}

const sentTimestamp = z.looseObject({ SentTimestamp: z.coerce.number().optional() });

function sentAt(record: SqsRecord): string | undefined {
  const { SentTimestamp } = sentTimestamp.parse(record.attributes);
  return SentTimestamp === undefined ? undefined : new Date(SentTimestamp).toISOString();
}
