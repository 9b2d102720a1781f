import { EventBridgeClient, PutEventsCommand, type PutEventsRequestEntry } from "@aws-sdk/client-eventbridge";
import type { OutboxEvent } from "../../core/base/events";
import type { EventPublisher } from "../../core/ports/queues";
import type { SdkClientHost } from "./sdk-clients";

export interface EventBridgePublisherOptions {
  readonly client: EventBridgeClient;
  readonly busName: string;
  /** The `source` consumers match on. */
  readonly source?: string;
}

/** The `source` of every billing event on the bus: what rules and consumers match on. */
export const EVENT_SOURCE = "billing.orchestrator";

/** PutEvents takes at most 10 entries per call. */
const MAX_ENTRIES = 10;

/**
 * Publishes billing events to an EventBridge bus; the SaaS grants or revokes access from them. The detail is the
 * event with its event_id, which consumers de-duplicate on. Entries the bus rejects are reported as an error: the
 * events stay in their outbox and are published again.
 */
export function createEventBridgePublisher({
  client,
  busName,
  source = EVENT_SOURCE,
}: EventBridgePublisherOptions): EventPublisher {
  return {
    async publish(events) {
      for (let start = 0; start < events.length; start += MAX_ENTRIES) {
        const entries = events
          .slice(start, start + MAX_ENTRIES)
          .map((event) => toEntry(event, busName, source));
        const result = await client.send(new PutEventsCommand({ Entries: entries }));
        if ((result.FailedEntryCount ?? 0) > 0) {
          const codes = (result.Entries ?? []).flatMap((entry) => (entry.ErrorCode ? [entry.ErrorCode] : []));
          throw new Error(`EventBridge rejected ${result.FailedEntryCount} event(s): ${codes.join(", ")}`);
        }
      }
    },
  };
}

function toEntry(event: OutboxEvent, busName: string, source: string): PutEventsRequestEntry {
  return { EventBusName: busName, Source: source, DetailType: event.type, Detail: JSON.stringify(event) };
}

/** The host's EventBridge client. */
export function eventBridgeClientOf(host: SdkClientHost): EventBridgeClient {
  return host.client("eventBridge", () => new EventBridgeClient(host.clientConfig("eventBridge")));
}
