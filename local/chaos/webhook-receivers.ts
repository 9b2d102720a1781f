import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import { Webhook, WebhookVerificationError } from "standardwebhooks";
import { createdWebhookEndpointView } from "../../functions/api/merchant-api-views";
import { webhookEventTypes } from "../../functions/core/ports/webhook-ports";
import { EVENT_TYPE_HEADER } from "../../functions/shared/billing-signature";
import { WEBHOOK_ID_HEADER } from "../../functions/shared/standard-webhooks";
import { listenOnLoopback } from "../aws/loopback-server";
import type { MerchantClient } from "../clients/merchant-client";
import type { ReceiverLog } from "./webhook-accounting";

// The SaaS's end of the chaos run's webhooks: HTTP receivers on loopback, each registered as an endpoint through the
// merchant API, verifying every request with its endpoint's secret by the standardwebhooks library (on the wall
// clock, as a SaaS's receiver does) and keeping what it accepted — while, drawn from a seeded stream, some answer 500 or 503 and some hang until the sender gives
// up. A refusal or a hang must come back as a retry, on the local clock, until the event is accepted.

export interface ReceiverSpec {
  readonly name: string;
  /** The types its endpoint is subscribed to (["*"]: all). */
  readonly events: readonly string[];
  /** The share of requests answered 500 or 503. */
  readonly errorRate?: number;
  /** The share of requests held without an answer until the sender gives up. */
  readonly hangRate?: number;
}

export interface WebhookReceiver {
  readonly url: string;
  /** What it saw so far. */
  log(): ReceiverLog;
  close(): Promise<void>;
}

/** Charges, refunds and chargebacks: what a SaaS's bookkeeping takes. The rest: subscriptions and cards. */
const MONEY_EVENT_TYPES = webhookEventTypes().filter((type) => /^(charge|refund|chargeback)\./.test(type));

/**
 * The SaaS's webhook endpoints: its bookkeeping takes the money events and answers 30 % of the requests with a 500
 * or 503; its account service takes every other type and holds 10 % without an answer until the sender gives up —
 * between them every event on the bus goes through an endpoint that fails; and a healthy one takes the events that
 * grant or take away access. Each delivery costs this one process four table requests and a POST: with both failing
 * endpoints taking every type, a run of 2,000 periods took 67 % longer.
 */
export const CHAOS_WEBHOOK_RECEIVERS: readonly ReceiverSpec[] = [
  { name: "flaky", events: MONEY_EVENT_TYPES, errorRate: 0.3 },
  {
    name: "hanging",
    events: webhookEventTypes().filter((type) => !MONEY_EVENT_TYPES.includes(type)),
    hangRate: 0.1,
  },
  {
    name: "healthy",
    events: [
      "subscription.activated",
      "subscription.past_due",
      "subscription.canceled",
      "subscription.paused",
      "subscription.resumed",
    ],
  },
];

/** A hang ends when the sender gives up; a sender more patient than this gets a 504 instead (counted the same). */
const LONGEST_HANG_MS = 30_000;

/**
 * Starts a receiver on 127.0.0.1 and registers it through the merchant API (the same Idempotency-Key on a repeat):
 * its requests are verified with the secret the registration answered.
 */
export async function startWebhookReceiver(
  spec: ReceiverSpec,
  client: MerchantClient,
  random: () => number,
): Promise<WebhookReceiver> {
  let webhook: Webhook | undefined;
  let endpointId = "";
  const accepted = new Map<string, { type: string; times: number }>();
  const bad: string[] = [];
  const counts = { requests: 0, refused: 0, timedOut: 0, stale: 0 };
  const handle = async (request: IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    for await (const chunk of request) chunks.push(Buffer.from(chunk));
    const body = Buffer.concat(chunks).toString("utf8");
    counts.requests += 1;
    const eventId = String(request.headers[WEBHOOK_ID_HEADER] ?? "");
    const type = String(request.headers[EVENT_TYPE_HEADER] ?? "");
    // The registration's answer is not back yet: nothing can be verified, so nothing is taken.
    if (webhook === undefined) {
      counts.refused += 1;
      return answer(response, 503);
    }
    const check = verification(webhook, body, request);
    if (check === "stale") {
      counts.stale += 1;
      return answer(response, 400);
    }
    if (check !== "valid") {
      bad.push(`${type} ${eventId}: signature ${check}`);
      return answer(response, 400);
    }
    const event = parsedEvent(body);
    if (event?.event_id !== eventId || event.type !== type) {
      bad.push(`${type} ${eventId}: the headers do not name the body's event`);
      return answer(response, 400);
    }
    const draw = random();
    const hangRate = spec.hangRate ?? 0;
    if (draw < hangRate) {
      counts.timedOut += 1;
      return hang(response);
    }
    if (draw < hangRate + (spec.errorRate ?? 0)) {
      counts.refused += 1;
      return answer(response, random() < 0.5 ? 500 : 503);
    }
    const seen = accepted.get(eventId);
    accepted.set(eventId, { type, times: (seen?.times ?? 0) + 1 });
    return answer(response, 204);
  };
  const server = createServer((request, response) => {
    handle(request, response).catch(() => answer(response, 500));
  });
  const listening = await listenOnLoopback(server, `the ${spec.name} receiver`);
  const url = `${listening.endpoint}/billing-events`;
  const registered = await client.post(
    "/v1/webhook-endpoints",
    { url, events: spec.events, description: `chaos ${spec.name}` },
    `chaos-webhook-${spec.name}`,
  );
  const created = createdWebhookEndpointView.safeParse(registered.body);
  if (!created.success) {
    await listening.close();
    throw new Error(`registering the ${spec.name} receiver answered ${registered.status}`);
  }
  webhook = new Webhook(created.data.secret);
  endpointId = created.data.id;
  return {
    url,
    log: () => ({
      name: spec.name,
      behaviour: behaviourOf(spec),
      endpointId,
      events: spec.events,
      ...counts,
      accepted,
      bad,
    }),
    close: listening.close,
  };
}

/** What the library makes of the request's signature: valid, stale (its time too far from ours), or why not. */
function verification(webhook: Webhook, body: string, request: IncomingMessage): string {
  try {
    webhook.verify(body, request.headers as Record<string, string>);
    return "valid";
  } catch (error) {
    if (!(error instanceof WebhookVerificationError)) return "not JSON";
    return /timestamp too (old|new)/.test(error.message) ? "stale" : error.message;
  }
}

function parsedEvent(body: string): { readonly event_id?: unknown; readonly type?: unknown } | undefined {
  try {
    const parsed: unknown = JSON.parse(body);
    return typeof parsed === "object" && parsed !== null ? parsed : undefined;
  } catch {
    return undefined;
  }
}

function answer(response: ServerResponse, status: number): void {
  if (!response.headersSent) response.writeHead(status).end();
}

/** No answer until the sender closes the connection (its timeout). */
async function hang(response: ServerResponse): Promise<void> {
  const closed = await new Promise<boolean>((resolve) => {
    const timer = setTimeout(() => resolve(false), LONGEST_HANG_MS);
    response.once("close", () => {
      clearTimeout(timer);
      resolve(true);
    });
  });
  if (!closed) answer(response, 504);
}

function behaviourOf(spec: ReceiverSpec): string {
  const faults = [
    ...(spec.errorRate ? [`${Math.round(spec.errorRate * 100)} % answered 500/503`] : []),
    ...(spec.hangRate ? [`${Math.round(spec.hangRate * 100)} % held past the sender's timeout`] : []),
  ];
  return faults.length === 0 ? "healthy" : faults.join(", ");
}
