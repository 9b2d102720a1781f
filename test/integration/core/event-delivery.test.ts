import { describe, expect, it } from "vitest";
import { z } from "zod";
import { outboxItemKey } from "../../../functions/adapters/dynamodb/dynamodb-outbox";
import { repository } from "../../../functions/composition/components";
import type { OutboxEvent } from "../../../functions/core/base/events";
import type { OutboxRef } from "../../../functions/core/ports/billing-repository";
import { LambdaFunctions } from "../../../local/lambda/lambda-functions";
import { pendingOutboxes } from "../../../local/lambda/pending-outboxes";
import { streamRecordOf } from "../../../local/lambda/table-stream";
import { decoratedComposition, decoration, SimulatedCrash } from "../../../local/stack/crash-injection";
import { eventsOf } from "../../support/billing-scenarios";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// Events written with their state (README, Events): nothing a crash or a bus outage does loses one, and a delivery
// repeated after a crash repeats the same event_id. The state changes come through the merchant API; the outboxes
// reach the bus through publish-events, invoked with the table stream's records.

const { call, stack, signUp } = merchantApiOnStack("mk_test_event_delivery_0123456789abcdef");

const pendingRefs = () => pendingOutboxes(stack().delivery.repository);

/** A signed-up subscription canceled through the API, its sign-up's events already delivered: one outbox pending. */
async function canceledSubscription(): Promise<string> {
  const { subscription_id } = z.object({ subscription_id: z.string() }).parse(await signUp());
  await stack().clearEvents();
  expect((await call("DELETE", `/v1/subscriptions/${subscription_id}`)).status).toBe(200);
  return subscription_id;
}

/** The stream record of a write that left `outbox` in the item of `ref`, where `before` was. */
const outboxWrite = (ref: OutboxRef, outbox: readonly OutboxEvent[], before: readonly OutboxEvent[] = []) => {
  const key = outboxItemKey(ref);
  return {
    Records: [streamRecordOf(key, { newImage: { ...key, outbox }, oldImage: { ...key, outbox: before } }, 1)],
  };
};

describe("outbox delivery", () => {
  it("keeps the events through a bus outage and delivers each once it is back", async () => {
    const subscription_id = await canceledSubscription();
    stack().eventBridge.outage = true;
    try {
      expect(await stack().deliverEvents()).toMatchObject({ outboxes: 1, delivered: 0, failed: 1 });
      expect(await pendingRefs()).toHaveLength(1);
    } finally {
      stack().eventBridge.outage = false;
    }
    const canceled = await eventsOf(stack(), subscription_id);
    expect(canceled.map((event) => event.type)).toEqual(["subscription.canceled"]);
    expect(await pendingRefs()).toEqual([]);
  });

  it("publishes again under the same event_id when the publisher dies before marking the delivery", async () => {
    const subscription_id = await canceledSubscription();
    const [ref = ""] = await pendingRefs();
    const { repository: stored } = stack().delivery;
    // publish-events over a repository that dies when asked to mark the delivery: published and logged by then.
    const dying = new LambdaFunctions(
      decoratedComposition(stack().composition, [
        decoration(repository, (built) => ({
          ...built,
          markDelivered: async () => {
            throw new SimulatedCrash("died after publishing");
          },
        })),
      ]),
    );
    // Its batch fails: the bus has the event, the outbox still holds it.
    await expect(
      dying.invoke("publish-events", outboxWrite(ref, await stored.readOutbox(ref))),
    ).rejects.toThrow();
    expect(stack().eventBridge.entries).toHaveLength(1);
    expect(await pendingRefs()).toEqual([ref]);

    const delivered = await eventsOf(stack(), subscription_id);
    expect(delivered).toHaveLength(2);
    expect(delivered[0]).toEqual(delivered[1]);
    expect(await pendingRefs()).toEqual([]);
    // Both deliveries logged it: the log holds it once, with the sign-up's events.
    const log = [];
    for await (const page of stored.readEventLog({ subscription_id })) log.push(...page);
    expect(log.map((event) => event.type).sort()).toEqual([
      "charge.succeeded",
      "invoice.finalized",
      "subscription.activated",
      "subscription.canceled",
      "subscription.created",
    ]);
    expect(log.find((event) => event.type === "subscription.canceled")).toEqual(delivered[0]);
  });

  it("publish-events delivers what a stream record's write added, and skips what its old image held", async () => {
    await canceledSubscription();
    const [ref = ""] = await pendingRefs();
    const outbox = await stack().delivery.repository.readOutbox(ref);
    const publish = (before: readonly OutboxEvent[]) =>
      stack().functions.invoke("publish-events", outboxWrite(ref, outbox, before));

    expect(await publish(outbox)).toEqual({ batchItemFailures: [] });
    expect(stack().eventBridge.entries).toEqual([]);
    expect(await pendingRefs()).toEqual([ref]);

    stack().eventBridge.outage = true;
    try {
      await expect(publish([])).rejects.toThrow();
    } finally {
      stack().eventBridge.outage = false;
    }
    expect(await publish([])).toEqual({ batchItemFailures: [] });
    expect(stack().eventBridge.entries.map((entry) => JSON.parse(entry.Detail))).toEqual(outbox);
    expect(await pendingRefs()).toEqual([]);
  });
});
