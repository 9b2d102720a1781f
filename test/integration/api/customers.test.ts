import { describe, expect, it } from "vitest";
import { z } from "zod";
import { attemptKeyOf } from "../../../functions/core/base/order-id";
import { eventsOf } from "../../support/billing-scenarios";
import { errorOf } from "../../support/merchant-api";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// The SaaS's own references through the merchant API as deployed: a customer's external_id and the subscription's
// metadata at sign-up, in every view and event, sent to the gateway (other_param), and edited later.

const { call, stack: currentStack } = merchantApiOnStack("mk_test_0a1b2c3d4e5f60718293a4b5c6d7e8f9");

const view = z.looseObject({
  subscription_id: z.string(),
  external_id: z.string().nullable(),
  metadata: z.record(z.string(), z.string()),
});

const signUp = (customer: Record<string, unknown>, extra: Record<string, unknown> = {}) =>
  call("POST", "/v1/subscriptions", {
    body: {
      customer: { name: "Ada Lovelace", email: "ada@example.com", ...customer },
      plan: { amount: "19.90", currency: "USD", interval_months: 1 },
      card: { number: "4111111111111111", expiry: "203012", cvc: "123" },
      ...extra,
    },
  });

describe("customers: external_id and metadata", () => {
  it("keeps them from sign-up in the view and every event, and sends external_id to the gateway", async () => {
    const answer = await signUp({ external_id: "acct_42" }, { metadata: { plan: "pro", seats: "5" } });
    expect(answer.status).toBe(201);
    const created = view.parse(answer.json);
    expect(created).toMatchObject({ external_id: "acct_42", metadata: { plan: "pro", seats: "5" } });

    const sale = [...currentStack().sandbox.state.payments.payments()].find(
      (payment) => attemptKeyOf(payment.orderId)?.subscription_id === created.subscription_id,
    );
    expect(sale?.otherParam).toEqual({ param1: "acct_42" });

    const events = await eventsOf(currentStack(), created.subscription_id);
    expect(events.map((event) => event.type).sort()).toEqual([
      "charge.succeeded",
      "invoice.finalized",
      "subscription.activated",
      "subscription.created",
    ]);
    for (const event of events)
      expect(event).toMatchObject({ external_id: "acct_42", metadata: { plan: "pro", seats: "5" } });

    const read = await call("GET", `/v1/subscriptions/${created.subscription_id}`);
    expect(view.parse(read.json)).toMatchObject({
      external_id: "acct_42",
      metadata: { plan: "pro", seats: "5" },
    });
  });

  it("shows none as null and {} for a subscription without them", async () => {
    const answer = await signUp({});
    expect(answer.json).toMatchObject({ external_id: null, metadata: {} });
  });

  it("edits them later: metadata merged key by key, an empty value removing its key; one subscription.updated", async () => {
    const created = view.parse((await signUp({ external_id: "acct_7" }, { metadata: { plan: "pro" } })).json);
    const id = created.subscription_id;
    await currentStack().clearEvents();

    const edited = await call("POST", `/v1/subscriptions/${id}`, {
      body: { external_id: "acct_8", metadata: { plan: "", team: "blue" } },
    });
    expect(edited.status).toBe(200);
    expect(edited.json).toMatchObject({ external_id: "acct_8", metadata: { team: "blue" } });
    expect(view.parse(edited.json).metadata).not.toHaveProperty("plan");

    // The same edit again changes nothing and announces nothing.
    const again = await call("POST", `/v1/subscriptions/${id}`, { body: { metadata: { team: "blue" } } });
    expect(again.status).toBe(200);
    expect(await eventsOf(currentStack(), id)).toEqual([
      expect.objectContaining({
        type: "subscription.updated",
        changed: ["external_id", "metadata"],
        external_id: "acct_8",
        metadata: { team: "blue" },
      }),
    ]);

    const cleared = await call("POST", `/v1/subscriptions/${id}`, { body: { external_id: null } });
    expect(cleared.json).toMatchObject({ external_id: null, metadata: { team: "blue" } });
  });

  it("refuses bad references with the field named, and changes nothing", async () => {
    const tooMany = Object.fromEntries(Array.from({ length: 21 }, (_, index) => [`k${index}`, "v"]));
    const cases: [Record<string, unknown>, Record<string, unknown>, string][] = [
      [{ external_id: "has space" }, {}, "customer.external_id"],
      [{ external_id: "" }, {}, "customer.external_id"],
      [{}, { metadata: tooMany }, "metadata"],
      [{}, { metadata: { "bad key!": "v" } }, "metadata.bad key!"],
      [{}, { metadata: { plan: "x".repeat(501) } }, "metadata.plan"],
    ];
    for (const [customer, extra, field] of cases) {
      const answer = await signUp(customer, extra);
      expect(answer.status, field).toBe(400);
      expect(errorOf(answer).field, JSON.stringify(extra)).toBe(field);
    }

    const id = view.parse((await signUp({ external_id: "acct_9" })).json).subscription_id;
    const empty = await call("POST", `/v1/subscriptions/${id}`, { body: {} });
    expect(empty.status).toBe(400);
    // Merged past 20 keys: refused as a conflict with what the subscription holds.
    await call("POST", `/v1/subscriptions/${id}`, {
      body: { metadata: Object.fromEntries(Array.from({ length: 15 }, (_, i) => [`a${i}`, "v"])) },
    });
    const over = await call("POST", `/v1/subscriptions/${id}`, {
      body: { metadata: Object.fromEntries(Array.from({ length: 10 }, (_, i) => [`b${i}`, "v"])) },
    });
    expect(over.status).toBe(409);
    expect(errorOf(over).message).toContain("more than 20 keys");
    expect(view.parse((await call("GET", `/v1/subscriptions/${id}`)).json).metadata).toHaveProperty("a0");
    expect(
      (await call("POST", "/v1/subscriptions/sub_missing", { body: { metadata: { a: "b" } } })).status,
    ).toBe(404);
  });

  it("lists a customer's subscriptions and a status's a page at a time, from indexes; bad parameters are named", async () => {
    const mine = [];
    for (let index = 0; index < 3; index += 1)
      mine.push(view.parse((await signUp({ external_id: "acct_list" })).json).subscription_id);
    await signUp({ external_id: "acct_other" });
    const listing = z.object({ data: z.array(view), next_cursor: z.string().nullable() });

    const first = listing.parse((await call("GET", "/v1/subscriptions?external_id=acct_list&limit=2")).json);
    expect(first.data).toHaveLength(2);
    expect(first.next_cursor).not.toBeNull();
    const rest = listing.parse(
      (await call("GET", `/v1/subscriptions?external_id=acct_list&limit=2&cursor=${first.next_cursor}`)).json,
    );
    expect(rest.next_cursor).toBeNull();
    expect([...first.data, ...rest.data].map((listed) => listed.subscription_id).sort()).toEqual(mine.sort());

    expect((await call("DELETE", `/v1/subscriptions/${mine[0]}`)).status).toBe(200);
    const canceled = listing.parse(
      (await call("GET", "/v1/subscriptions?status=canceled&external_id=acct_list")).json,
    );
    expect(canceled.data.map((listed) => listed.subscription_id)).toEqual([mine[0]]);
    const active = listing.parse((await call("GET", "/v1/subscriptions?status=active&limit=100")).json);
    expect(active.data.map((listed) => listed.subscription_id)).not.toContain(mine[0]);

    for (const [query, field] of [
      ["limit=0", "limit"],
      ["limit=101", "limit"],
      ["status=late", "status"],
      ["cursor=not-a-cursor", "cursor"],
      ["external_id=has%20space", "external_id"],
      ["color=blue", "color"],
    ]) {
      const answer = await call("GET", `/v1/subscriptions?${query}`);
      expect(answer.status, query).toBe(400);
      expect(errorOf(answer).field, query).toBe(field);
    }
  });
});
