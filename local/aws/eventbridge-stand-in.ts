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

/** A rule on the bus: the entries it matches go to its target, as EventBridge hands them to a Lambda function. */
export interface BusRule {
  readonly name: string;
  readonly detailTypes: readonly string[];
  readonly target: (event: BusEvent) => Promise<unknown>;
}

/** What a rule's Lambda target receives: EventBridge's envelope, the entry's detail parsed. */
export interface BusEvent {
  readonly version: "0";
  readonly id: string;
  readonly "detail-type": string;
  readonly source: string;
  readonly account: string;
  readonly time: string;
  readonly region: string;
  readonly resources: readonly string[];
  readonly detail: unknown;
}

/**
 * A target's tries of one event before it goes to the dead letters: EventBridge tries up to 185 times over a day;
 * here the tries follow each other at once, so fewer cover a target that fails now and then (a throttled mail service).
 */
const TARGET_TRIES = 10;

export interface EventBridgeStandIn extends AwsJsonServer {
  /** Every entry put, oldest first (tests read it; local mode may forward it). */
  readonly entries: PublishedEntry[];
  /** The bus's rules: each entry put is handed to every rule matching its detail-type, after PutEvents answered. */
  readonly rules: BusRule[];
  /** Events a rule's target failed TARGET_TRIES times, with the rule's name (a rule's dead-letter queue). */
  readonly deadLetters: { readonly rule: string; readonly event: BusEvent; readonly error: unknown }[];
  /** Resolves once every target invocation begun so far has finished (its retries included). */
  settled(): Promise<void>;
  /** While true, every entry is refused (FailedEntryCount, ErrorCode InternalFailure), as a bus outage answers. */
  outage: boolean;
  /** Entries refused so far. */
  refused: number;
}

/**
 * EventBridge's PutEvents in its JSON 1.1 protocol, accepting every entry and keeping it, so functions built from
 * the environment (AWS_ENDPOINT_URL_EVENTBRIDGE) publish for real in local mode and tests. Rules match on detail-type
 * and invoke their targets after PutEvents answered, as the bus does; `now` stamps the envelope (the local clock).
 */
export async function startEventBridgeStandIn(
  now: () => Date = () => new Date(),
): Promise<EventBridgeStandIn> {
  const entries: PublishedEntry[] = [];
  const rules: BusRule[] = [];
  const deadLetters: EventBridgeStandIn["deadLetters"] = [];
  const inFlight = new Set<Promise<void>>();
  const standIn = { outage: false, refused: 0 };
  const deliver = async (rule: BusRule, event: BusEvent) => {
    for (let attempt = 1; ; attempt += 1) {
      try {
        await rule.target(event);
        return;
      } catch (error) {
        if (attempt === TARGET_TRIES) {
          deadLetters.push({ rule: rule.name, event, error });
          return;
        }
      }
    }
  };
  const route = (entry: PublishedEntry) => {
    const event: BusEvent = {
      version: "0",
      id: randomUUID(),
      "detail-type": entry.DetailType,
      source: entry.Source,
      account: "000000000000",
      time: now().toISOString(),
      region: "local",
      resources: [],
      detail: JSON.parse(entry.Detail),
    };
    for (const rule of rules.filter((candidate) => candidate.detailTypes.includes(entry.DetailType))) {
      const delivery = deliver(rule, event).finally(() => inFlight.delete(delivery));
      inFlight.add(delivery);
    }
  };
  const server = await startAwsJsonServer("AWSEvents", {
    PutEvents: operation(putEventsInput, (input) => {
      if (standIn.outage) {
        const refused = { ErrorCode: "InternalFailure", ErrorMessage: "the bus is unavailable" };
        standIn.refused += input.Entries.length;
        return { FailedEntryCount: input.Entries.length, Entries: input.Entries.map(() => refused) };
      }
      entries.push(...input.Entries);
      for (const entry of input.Entries) route(entry);
      return { FailedEntryCount: 0, Entries: input.Entries.map(() => ({ EventId: randomUUID() })) };
    }),
  });
  const settled = async () => {
    while (inFlight.size > 0) await Promise.all(inFlight);
  };
  return Object.assign(standIn, server, { entries, rules, deadLetters, settled });
}
