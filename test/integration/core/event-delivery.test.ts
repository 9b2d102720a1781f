import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { outboxItemKey } from "../../../functions/adapters/dynamodb-outbox";
import { deliverEvents } from "../../../functions/core/event-delivery";
import { cancelSubscription } from "../../../functions/core/subscription-changes";
import { run as publishEvents } from "../../../functions/handlers/publish-events";
import { BillingStack } from "../../../local/billing-stack";
import { SimulatedCrash } from "../../../local/crash-injection";
import { pendingOutboxes } from "../../../local/pending-outboxes";
import { streamRecordOf } from "../../../local/table-stream";
import { eventsOf } from "../../support/billing-scenarios";
import { signUpCards } from "../../support/signups";

// Events written with their state (README, Events): nothing a crash or a bus outage does loses one, and a delivery
// repeated after a crash repeats the same event_id.

let stack: BillingStack;

beforeAll(async () => {
  stack = await BillingStack.start({ start: new Date("2027-03-01T10:00:00.000Z") });
});
afterAll(() => stack.close());

const pendingRefs = () => pendingOutboxes(stack.delivery.repository);

describe("outbox delivery", () => {
  it("keeps the events through a bus outage and delivers each once it is back", async () => {
    const [subscription_id = ""] = await signUpCards(stack, ["4111111111111111"]);
    await stack.clearEvents();
    stack.eventBridge.outage = true;
    try {
      expect(await cancelSubscription(subscription_id, stack.services)).toMatchObject({ kind: "changed" });
      expect(await stack.deliverEvents()).toMatchObject({ outboxes: 1, delivered: 0, failed: 1 });
      expect(await pendingRefs()).toHaveLength(1);
    } finally {
      stack.eventBridge.outage = false;
    }
    const canceled = await eventsOf(stack, subscription_id);
    expect(canceled.map((event) => event.type)).toEqual(["subscription.canceled"]);
    expect(await pendingRefs()).toEqual([]);
  });

  it("publishes again under the same event_id when the publisher dies before marking the delivery", async () => {
    const [subscription_id = ""] = await signUpCards(stack, ["4111111111111111"]);
    await stack.clearEvents();
    await cancelSubscription(subscription_id, stack.services);
    const { repository } = stack.delivery;
    const crashing = {
      ...stack.delivery,
      repository: {
        ...repository,
        markDelivered: async () => {
          throw new SimulatedCrash("died after publishing");
        },
      },
    };
    const [ref = ""] = await pendingRefs();
    const events = await repository.readOutbox(ref);
    await expect(deliverEvents(ref, events, crashing)).rejects.toThrow(SimulatedCrash);
    const delivered = await eventsOf(stack, subscription_id);
    expect(delivered).toHaveLength(2);
    expect(delivered[0]).toEqual(delivered[1]);
    expect(await pendingRefs()).toEqual([]);
    // Both deliveries logged it: the log holds it once, with the sign-up's events.
    const log = [];
    for await (const page of repository.readEventLog({ subscription_id })) log.push(...page);
    expect(log.map((event) => event.type).sort()).toEqual([
      "charge.succeeded",
      "subscription.activated",
      "subscription.canceled",
      "subscription.created",
    ]);
    expect(log.find((event) => event.type === "subscription.canceled")).toEqual(delivered[0]);
  });

  it("publish-events delivers what a stream record's write added, and skips what its old image held", async () => {
    const [subscription_id = ""] = await signUpCards(stack, ["4111111111111111"]);
    await stack.clearEvents();
    await cancelSubscription(subscription_id, stack.services);
    const [ref = ""] = await pendingRefs();
    const [event] = await stack.delivery.repository.readOutbox(ref);
    const key = outboxItemKey(ref);
    const invoke = (oldOutbox: readonly unknown[]) =>
      publishEvents(
        {
          Records: [
            streamRecordOf(
              key,
              { newImage: { ...key, outbox: [event] }, oldImage: { ...key, outbox: oldOutbox } },
              1,
            ),
          ],
        },
        stack.delivery,
      );

    expect(await invoke([event])).toEqual({ batchItemFailures: [] });
    expect(stack.eventBridge.entries).toEqual([]);
    expect(await pendingRefs()).toEqual([ref]);

    stack.eventBridge.outage = true;
    try {
      await expect(invoke([])).rejects.toThrow();
    } finally {
      stack.eventBridge.outage = false;
    }
    expect(await invoke([])).toEqual({ batchItemFailures: [] });
    expect(stack.eventBridge.entries.map((entry) => JSON.parse(entry.Detail))).toEqual([event]);
    expect(await pendingRefs()).toEqual([]);
  });
});
