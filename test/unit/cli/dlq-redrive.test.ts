import { SQSClient, SQSServiceException } from "@aws-sdk/client-sqs";
import { describe, expect, it } from "vitest";
import { isUnsupportedOperation, redriveDlq } from "../../../cli/dlq-redrive";
import type { Progress } from "../../../cli/progress";

// The redrive's two ways, on an SQS client whose every request is answered here (nothing leaves the process): a
// message move task where the service offers one, the receive/send/delete loop where it does not.

const QUEUES = {
  source: "https://sqs.eu-west-1.amazonaws.com/123456789012/ChargeWorkQueue",
  dlq: "https://sqs.eu-west-1.amazonaws.com/123456789012/ChargeWorkDLQ",
};
const ARNS = {
  [QUEUES.source]: "arn:aws:sqs:eu-west-1:123456789012:ChargeWorkQueue",
  [QUEUES.dlq]: "arn:aws:sqs:eu-west-1:123456789012:ChargeWorkDLQ",
};

type Answer = (input: Record<string, unknown>) => unknown;

/** An SQS client answering each command with `answers[commandName]` (an error thrown is SQS's refusal). */
function scriptedSqs(answers: Record<string, Answer>) {
  const client = new SQSClient({
    region: "eu-west-1",
    credentials: { accessKeyId: "test", secretAccessKey: "test" },
  });
  const sent: { command: string; input: Record<string, unknown> }[] = [];
  client.middlewareStack.add(
    (_next, context) => async (args) => {
      const command = context.commandName ?? "unknown";
      const input = args.input as Record<string, unknown>;
      sent.push({ command, input });
      const answer = answers[command];
      if (answer === undefined) throw new Error(`unexpected ${command}`);
      return { output: { $metadata: {}, ...(answer(input) as object) }, response: {} };
    },
    { step: "initialize", name: "scriptedAnswers" },
  );
  return { client, sent };
}

/** Answers QueueArn for the two queues. */
const queueArn: Answer = (input) => ({ Attributes: { QueueArn: ARNS[String(input.QueueUrl)] } });

/** ListMessageMoveTasks answering `tasks` one call after another, the last one ever after. */
function listing(...tasks: Record<string, unknown>[][]): Answer {
  let call = 0;
  return () => ({ Results: tasks[Math.min(call++, tasks.length - 1)] });
}

function recordingProgress() {
  const seen = {
    updates: [] as [number, string | undefined][],
    totals: [] as number[],
    notes: [] as string[],
  };
  const progress: Progress = {
    drawn: true,
    update: (done, detail) => seen.updates.push([done, detail]),
    setTotal: (total) => seen.totals.push(total),
    note: (text) => seen.notes.push(text),
  };
  return { progress, seen };
}

const options = (progress: Progress) => ({ progress, pollMs: 1, waitSeconds: 0 });

const earlierTask = {
  Status: "COMPLETED",
  SourceArn: ARNS[QUEUES.dlq],
  ApproximateNumberOfMessagesMoved: 4,
  ApproximateNumberOfMessagesToMove: 4,
  StartedTimestamp: 1_000,
};
const task = (fields: Record<string, unknown>) => ({
  SourceArn: ARNS[QUEUES.dlq],
  DestinationArn: ARNS[QUEUES.source],
  StartedTimestamp: 2_000,
  ApproximateNumberOfMessagesToMove: 10,
  ...fields,
});

describe("dlq redrive by a message move task", () => {
  it("starts one from the DLQ to its work queue and polls it to the end, the bar following SQS's counts", async () => {
    const { client, sent } = scriptedSqs({
      GetQueueAttributesCommand: queueArn,
      StartMessageMoveTaskCommand: () => ({ TaskHandle: "handle-1" }),
      ListMessageMoveTasksCommand: listing(
        [earlierTask],
        // The new task is not listed yet: the earlier one is no answer about it.
        [earlierTask],
        [
          task({ Status: "RUNNING", TaskHandle: "handle-1", ApproximateNumberOfMessagesMoved: 3 }),
          earlierTask,
        ],
        [task({ Status: "COMPLETED", ApproximateNumberOfMessagesMoved: 10 }), earlierTask],
      ),
    });
    const { progress, seen } = recordingProgress();
    expect(await redriveDlq(client, QUEUES, options(progress))).toEqual({
      method: "message_move_task",
      moved: 10,
      not_moved: 0,
      not_deleted: 0,
    });
    expect(sent.find((request) => request.command === "StartMessageMoveTaskCommand")?.input).toEqual({
      SourceArn: ARNS[QUEUES.dlq],
      DestinationArn: ARNS[QUEUES.source],
    });
    expect(seen.updates.map(([done]) => done)).toEqual([3, 10]);
    expect(seen.totals).toContain(10);
    expect(sent.some((request) => request.command === "ReceiveMessageCommand")).toBe(false);
  });

  it("says how far a task got that failed, and what stays on the DLQ", async () => {
    const { client } = scriptedSqs({
      GetQueueAttributesCommand: queueArn,
      StartMessageMoveTaskCommand: () => ({ TaskHandle: "handle-2" }),
      ListMessageMoveTasksCommand: listing(
        [],
        [task({ Status: "FAILED", ApproximateNumberOfMessagesMoved: 6, FailureReason: "AccessDenied" })],
      ),
    });
    const { progress } = recordingProgress();
    expect(await redriveDlq(client, QUEUES, options(progress))).toEqual({
      method: "message_move_task",
      moved: 6,
      not_moved: 4,
      not_deleted: 0,
      failure: "FAILED: AccessDenied",
    });
  });

  it("follows a task already running on the DLQ instead of starting another", async () => {
    const running = task({ Status: "RUNNING", TaskHandle: "handle-3", ApproximateNumberOfMessagesMoved: 1 });
    const { client, sent } = scriptedSqs({
      GetQueueAttributesCommand: queueArn,
      ListMessageMoveTasksCommand: listing(
        [running],
        [task({ Status: "COMPLETED", ApproximateNumberOfMessagesMoved: 10 })],
      ),
    });
    const { progress, seen } = recordingProgress();
    expect(await redriveDlq(client, QUEUES, options(progress))).toMatchObject({ moved: 10 });
    expect(sent.some((request) => request.command === "StartMessageMoveTaskCommand")).toBe(false);
    expect(seen.notes).toEqual(["a message move task already runs on this DLQ: following it"]);
  });
});

describe("dlq redrive where SQS offers no message move task", () => {
  const refusal = (name: string, httpStatusCode = 400) =>
    new SQSServiceException({
      name,
      $fault: "client",
      $metadata: { httpStatusCode },
      message: `${name} here`,
    });

  it("knows the answers of a service without the action: AWS's, SQS's, emulators', a 501", () => {
    for (const name of [
      "UnknownOperationException",
      "UnsupportedOperation",
      "InvalidAction",
      "NotImplemented",
    ])
      expect(isUnsupportedOperation(refusal(name))).toBe(true);
    expect(isUnsupportedOperation(refusal("InternalFailure", 501))).toBe(true);
    expect(isUnsupportedOperation(refusal("InternalFailure", 500))).toBe(false);
    expect(isUnsupportedOperation(refusal("QueueDoesNotExist"))).toBe(false);
  });

  it("moves the messages by receive, send and delete, saying so in one line", async () => {
    const messages = [1, 2].map((n) => ({
      MessageId: `m${n}`,
      ReceiptHandle: `r${n}`,
      Body: `{"n":${n}}`,
      Attributes: { ApproximateReceiveCount: "5" },
    }));
    let receives = 0;
    const { client, sent } = scriptedSqs({
      GetQueueAttributesCommand: (input) =>
        input.AttributeNames === undefined || (input.AttributeNames as string[]).includes("QueueArn")
          ? queueArn(input)
          : { Attributes: { ApproximateNumberOfMessages: "2" } },
      ListMessageMoveTasksCommand: () => {
        throw refusal("UnknownOperationException");
      },
      ReceiveMessageCommand: () => ({ Messages: receives++ === 0 ? messages : [] }),
      SendMessageBatchCommand: () => ({ Successful: [], Failed: [] }),
      DeleteMessageBatchCommand: () => ({ Successful: [], Failed: [] }),
      ChangeMessageVisibilityBatchCommand: () => ({ Successful: [], Failed: [] }),
    });
    const { progress, seen } = recordingProgress();
    expect(await redriveDlq(client, QUEUES, options(progress))).toEqual({
      method: "receive_send_delete",
      moved: 2,
      not_moved: 0,
      not_deleted: 0,
    });
    expect(seen.notes).toEqual([
      "SQS here has no StartMessageMoveTask (UnknownOperationException): moving the messages by receive, send and delete",
    ]);
    expect(seen.totals).toEqual([2]);
    expect(sent.find((request) => request.command === "SendMessageBatchCommand")?.input).toMatchObject({
      QueueUrl: QUEUES.source,
      Entries: [{ MessageBody: '{"n":1}' }, { MessageBody: '{"n":2}' }],
    });
  });

  it("falls back as well when the operator may not start a move task, naming the permissions", async () => {
    const { client } = scriptedSqs({
      GetQueueAttributesCommand: (input) =>
        (input.AttributeNames as string[]).includes("QueueArn")
          ? queueArn(input)
          : { Attributes: { ApproximateNumberOfMessages: "0" } },
      ListMessageMoveTasksCommand: () => ({ Results: [] }),
      StartMessageMoveTaskCommand: () => {
        throw refusal("AccessDeniedException", 403);
      },
      ReceiveMessageCommand: () => ({ Messages: [] }),
      ChangeMessageVisibilityBatchCommand: () => ({}),
    });
    const { progress, seen } = recordingProgress();
    expect(await redriveDlq(client, QUEUES, options(progress))).toMatchObject({
      method: "receive_send_delete",
      moved: 0,
    });
    expect(seen.notes[0]).toContain("sqs:StartMessageMoveTask and sqs:ListMessageMoveTasks");
  });

  it("lets any other refusal through", async () => {
    const { client } = scriptedSqs({
      GetQueueAttributesCommand: () => {
        throw refusal("QueueDoesNotExist");
      },
    });
    const { progress } = recordingProgress();
    await expect(redriveDlq(client, QUEUES, options(progress))).rejects.toThrow("QueueDoesNotExist here");
  });
});
