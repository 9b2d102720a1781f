import { randomUUID } from "node:crypto";
import { z } from "zod";
import { type AwsJsonServer, operation, startAwsJsonServer } from "./aws-json-server";

const putEventsInput = z.looseObject({
  Entries: z
    .array(
      z.looseObject({
        EventBusName: z.string().min(1),
        Source: z.string().min(1),
        DetailType: z.string().min(1),
        Detail: z.string(),
      }),
    )
    .min(1)
    .max(10),
});

export type PublishedEntry = z.output<typeof putEventsInput>["Entries"][number];

export interface EventBridgeStandIn extends AwsJsonServer {
  /** Every entry put, oldest first (tests read it; local mode may forward it). */
  readonly entries: PublishedEntry[];
  /** While true, every entry is refused (FailedEntryCount, ErrorCode InternalFailure), as a bus outage answers. */
  outage: boolean;
  /** Entries refused so far. */
  refused: number;
}

/**
 * EventBridge's PutEvents in its JSON 1.1 protocol, accepting every entry and keeping it, so functions built from
 * the environment (AWS_ENDPOINT_URL_EVENTBRIDGE) publish for real in local mode and tests. No rules, no targets.
 */
export async function startEventBridgeStandIn(): Promise<EventBridgeStandIn> {
  const entries: PublishedEntry[] = [];
  const standIn = { outage: false, refused: 0 };
  const server = await startAwsJsonServer("AWSEvents", {
    PutEvents: operation(putEventsInput, (input) => {
      if (standIn.outage) {
        const refused = { ErrorCode: "InternalFailure", ErrorMessage: "the bus is unavailable" };
        standIn.refused += input.Entries.length;
        return { FailedEntryCount: input.Entries.length, Entries: input.Entries.map(() => refused) };
      }
      entries.push(...input.Entries);
      return { FailedEntryCount: 0, Entries: input.Entries.map(() => ({ EventId: randomUUID() })) };
    }),
  });
  return Object.assign(standIn, server, { entries });
}
