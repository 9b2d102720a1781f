import { describe, expect, it } from "vitest";
import type { WebhookDelivery } from "../../../../functions/core/ports/webhook-ports";
import { accountForWebhooks, type ReceiverLog } from "../../../../local/chaos/webhook-accounting";

const at = "2027-03-01T10:00:00.000Z";
const succeeded = (id: string) =>
  JSON.stringify({
    type: "charge.succeeded",
    subscription_id: "sub_a",
    attempt: 0,
    amount: "19.90",
    currency: "USD",
    period: 1,
    order_id: "sub_a-1-0",
    event_id: id,
    occurred_at: at,
  });
const canceled = (id: string) =>
  JSON.stringify({
    type: "subscription.canceled",
    subscription_id: "sub_a",
    reason: "merchant",
    event_id: id,
    occurred_at: at,
  });

const receiver = (
  name: string,
  events: readonly string[],
  accepted: Record<string, [type: string, times: number]>,
  fields: Partial<ReceiverLog> = {},
): ReceiverLog => ({
  name,
  behaviour: "healthy",
  endpointId: `we_${name}`,
  events,
  requests: 0,
  accepted: new Map(Object.entries(accepted).map(([id, [type, times]]) => [id, { type, times }])),
  refused: 0,
  timedOut: 0,
  stale: 0,
  bad: [],
  ...fields,
});

const delivery = (
  endpoint: string,
  id: string,
  eventId: string,
  fields: Partial<WebhookDelivery> = {},
): WebhookDelivery => ({
  delivery_id: id,
  endpoint_id: `we_${endpoint}`,
  event_id: eventId,
  event_type: "charge.succeeded",
  created_at: at,
  status: "delivered",
  attempts: 1,
  message_id: `m_${id}`,
  updated_at: at,
  ...fields,
});

const settled = { queued: 0, deadLetters: 0, fanOutsGivenUp: [] };

describe("accountForWebhooks", () => {
  it("owes each endpoint every distinct event of its types, counting copies and retries", () => {
    const account = accountForWebhooks({
      // e1 reached the bus twice: two deliveries to every endpoint taking it.
      details: [succeeded("e1"), succeeded("e1"), canceled("e2")],
      receivers: [
        receiver(
          "all",
          ["*"],
          { e1: ["charge.succeeded", 2], e2: ["subscription.canceled", 1] },
          { behaviour: "30 % answered 500/503", requests: 6, refused: 3 },
        ),
        receiver(
          "charges",
          ["charge.succeeded"],
          { e1: ["charge.succeeded", 1] },
          { requests: 3, timedOut: 1 },
        ),
      ],
      deliveries: [
        delivery("all", "d1", "e1", { attempts: 3 }),
        delivery("all", "d2", "e1"),
        delivery("all", "d3", "e2", { event_type: "subscription.canceled", attempts: 2 }),
        delivery("charges", "d4", "e1", { attempts: 2 }),
        delivery("charges", "d5", "e1"),
      ],
      ...settled,
    });
    expect(account).toEqual({
      endpoints: [
        {
          name: "all",
          behaviour: "30 % answered 500/503",
          events: "all",
          owed: 2,
          deliveries: 3,
          retries: 3,
          requests: 6,
          refused: 3,
          timedOut: 0,
          stale: 0,
          copies: 1,
        },
        {
          name: "charges",
          behaviour: "healthy",
          events: "charge.succeeded",
          owed: 1,
          deliveries: 2,
          retries: 1,
          requests: 3,
          refused: 0,
          timedOut: 1,
          stale: 0,
          copies: 0,
        },
      ],
      lost: [],
      bad: [],
      unsettled: [],
    });
  });

  it("names an event never accepted, a bad or unsubscribed request, and what is left unsettled", () => {
    const account = accountForWebhooks({
      details: [succeeded("e1"), canceled("e2")],
      receivers: [
        receiver(
          "charges",
          ["charge.succeeded"],
          { e2: ["subscription.canceled", 1] },
          { bad: ["charge.succeeded e1: signature mismatch"] },
        ),
      ],
      deliveries: [
        delivery("charges", "d1", "e1", {
          status: "retrying",
          attempts: 4,
          last_status: 503,
          next_attempt_at: at,
        }),
        delivery("charges", "d2", "e2", {
          status: "failed",
          attempts: 20,
          last_error: "no answer within 500 ms",
        }),
        delivery("other", "d3", "e1"),
      ],
      queued: 1,
      deadLetters: 2,
      fanOutsGivenUp: ["e9"],
    });
    expect(account.lost).toEqual([
      "event e9: the bus gave up queueing its webhooks",
      "charges: charge.succeeded e1 never accepted",
    ]);
    expect(account.bad).toEqual([
      "charges: charge.succeeded e1: signature mismatch",
      "charges: subscription.canceled e2 sent, not subscribed to",
    ]);
    expect(account.unsettled).toEqual([
      "1 message(s) left on the delivery queue",
      "2 message(s) in the delivery queue's DLQ",
      "charges: delivery d1 of charge.succeeded e1 retrying after 4 attempt(s) (last: 503)",
      "charges: delivery d2 of charge.succeeded e2 failed after 20 attempt(s) (last: no answer within 500 ms)",
      "charges: 2 deliveries recorded for 1 bus entries of its types",
    ]);
  });
});
