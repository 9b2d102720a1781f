import { once } from "node:events";
import { createServer, type IncomingMessage, type Server } from "node:http";
import { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { createEventBridgePublisher } from "../../../functions/adapters/aws/eventbridge-publisher";
import type { OutboxEvent } from "../../../functions/core/base/events";

// A stand-in speaking EventBridge's JSON protocol, so the real SDK client serialises and sends the calls.
interface PutEventsCall {
  readonly target: string | undefined;
  readonly entries: ReadonlyArray<{
    EventBusName: string;
    Source: string;
    DetailType: string;
    Detail: string;
  }>;
}

let server: Server;
let endpoint: string;
const calls: PutEventsCall[] = [];
let failFirstEntry = false;

async function readJson(request: IncomingMessage): Promise<{ Entries: PutEventsCall["entries"] }> {
  const chunks: Buffer[] = [];
  for await (const chunk of request) chunks.push(chunk as Buffer);
  return JSON.parse(Buffer.concat(chunks).toString("utf8"));
}

beforeAll(async () => {
  server = createServer(async (request, response) => {
    const body = await readJson(request);
    calls.push({ target: request.headers["x-amz-target"] as string | undefined, entries: body.Entries });
    const entries = body.Entries.map((_, index) =>
      failFirstEntry && index === 0
        ? { ErrorCode: "InternalFailure", ErrorMessage: "try again" }
        : { EventId: `e${index}` },
    );
    response.writeHead(200, { "content-type": "application/x-amz-json-1.1" });
    response.end(JSON.stringify({ FailedEntryCount: failFirstEntry ? 1 : 0, Entries: entries }));
  });
  server.listen(0, "127.0.0.1");
  await once(server, "listening");
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("no port");
  endpoint = `http://127.0.0.1:${address.port}`;
});

afterAll(() => new Promise<void>((resolve) => server.close(() => resolve())));

beforeEach(() => {
  calls.length = 0;
  failFirstEntry = false;
});

const client = () =>
  new EventBridgeClient({
    endpoint,
    region: "us-east-1",
    credentials: { accessKeyId: "local", secretAccessKey: "local" },
  });

const event = (n: number): OutboxEvent => ({
  type: "subscription.reactivated",
  subscription_id: `sub_${n}`,
  event_id: `evt_${n}`,
  occurred_at: "2027-03-01T10:00:00.000Z",
});

describe("EventBridge publisher", () => {
  it("sends each event with its type as detail-type, at most 10 per PutEvents call", async () => {
    const publisher = createEventBridgePublisher({ client: client(), busName: "billing-bus" });
    await publisher.publish(Array.from({ length: 23 }, (_, n) => event(n)));
    expect(calls.map((call) => call.entries.length)).toEqual([10, 10, 3]);
    expect(calls[0]?.target).toBe("AWSEvents.PutEvents");
    expect(calls[0]?.entries[0]).toEqual({
      EventBusName: "billing-bus",
      Source: "billing.orchestrator",
      DetailType: "subscription.reactivated",
      Detail: JSON.stringify(event(0)),
    });
  });

  it("reports entries the bus rejected instead of dropping them", async () => {
    failFirstEntry = true;
    const publisher = createEventBridgePublisher({ client: client(), busName: "billing-bus" });
    await expect(publisher.publish([event(1)])).rejects.toThrow(/rejected 1 event\(s\): InternalFailure/);
  });

  it("sends nothing for no events", async () => {
    await createEventBridgePublisher({ client: client(), busName: "billing-bus" }).publish([]);
    expect(calls).toHaveLength(0);
  });
});
