import { randomUUID } from "node:crypto";
import type { Context } from "aws-lambda";

/** A Lambda context as the runtime passes it, for calling wrapped handlers outside Lambda. */
export function stubContext(functionName = "billing-test"): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: "$LATEST",
    invokedFunctionArn: `arn:aws:lambda:us-east-1:123456789012:function:${functionName}`,
    memoryLimitInMB: "256",
    awsRequestId: "c6af9ac6-7b61-11e6-9a41-93e812345678",
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: "2027/03/01/[$LATEST]0123456789abcdef",
    getRemainingTimeInMillis: () => 30_000,
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The context of one local invocation: its own request id, and the time left counted down from its timeout. */
export function invocationContext(functionName: string, timeoutSeconds: number): Context {
  const deadline = Date.now() + timeoutSeconds * 1000;
  return {
    ...stubContext(functionName),
    awsRequestId: randomUUID(),
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
  };
}

/** The "Scheduled Event" envelope an EventBridge rule (or Scheduler's templated target) delivers. */
export function scheduledEvent(time = "2027-03-01T10:00:00Z") {
  return {
    version: "0",
    id: "53dc4d37-cffa-4f76-80c9-8b7d4a4d2eaa",
    "detail-type": "Scheduled Event",
    source: "aws.events",
    account: "123456789012",
    time,
    region: "us-east-1",
    resources: ["arn:aws:events:us-east-1:123456789012:rule/billing-schedule"],
    detail: {},
  };
}
