import { ScanCommand } from "@aws-sdk/lib-dynamodb";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { errorOf } from "../../support/merchant-api";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// A card number belongs in the card fields only (README, Merchant API): typed into a name, an external_id, a metadata
// value or key, a refund's reason or a header, it is refused with a 400 naming the field, never echoing it; nothing is
// stored, and the gateway never hears of it (as other_param.param1 or otherwise).

const { call, stack, signUp } = merchantApiOnStack("mk_test_card_numbers_0123456789abcdef0");

const CARD = "4111111111111111";
const customer = { name: "Ann Lee", email: "ann@example.com" };
const plan = { amount: "19.90", currency: "USD", interval_months: 1 };
const card = { number: CARD, expiry: "203012", cvc: "123" };

/** Every item of the billing table, as text. */
async function tableText(): Promise<string> {
  const { dynamo } = stack();
  const scanned = await dynamo.client.send(new ScanCommand({ TableName: stack().tableName }));
  return JSON.stringify(scanned.Items ?? []);
}

describe("card numbers outside the card fields", () => {
  it("refuses them in any field, naming it, storing and sending nothing", async () => {
    const subscriptionId = z.object({ subscription_id: z.string() }).parse(await signUp()).subscription_id;
    const chargeId = `${subscriptionId}-0-0`;
    const before = { table: await tableText(), gateway: stack().sandbox.state.revision };
    const cases: readonly [string, () => ReturnType<typeof call>][] = [
      [
        "customer.name",
        () =>
          call("POST", "/v1/subscriptions", {
            body: { customer: { ...customer, name: "Ann 4111 1111 1111 1111" }, plan, card },
          }),
      ],
      [
        "customer.external_id",
        () =>
          call("POST", "/v1/subscriptions", {
            body: { customer: { ...customer, external_id: "4111-1111-1111-1111" }, plan, card },
          }),
      ],
      [
        "metadata.note",
        () =>
          call("POST", "/v1/checkouts", {
            body: { customer, plan, billing: "token", metadata: { note: CARD } },
          }),
      ],
      [
        "metadata",
        () => call("POST", `/v1/subscriptions/${subscriptionId}`, { body: { metadata: { [CARD]: "x" } } }),
      ],
      [
        "reason",
        () => call("POST", `/v1/charges/${chargeId}/refunds`, { body: { reason: `refund to ${CARD}` } }),
      ],
      [
        "Idempotency-Key",
        () => call("POST", `/v1/subscriptions/${subscriptionId}/charges`, { body: {}, idempotencyKey: CARD }),
      ],
      ["external_id", () => call("GET", `/v1/subscriptions?external_id=${CARD}`)],
    ];
    for (const [field, request] of cases) {
      const answer = await request();
      expect(answer.status, field).toBe(400);
      expect(errorOf(answer), field).toMatchObject({ code: "invalid_request", field });
      expect(answer.text.replace(/[ -]/g, "")).not.toContain(CARD);
    }
    expect(await tableText()).toEqual(before.table);
    expect(stack().sandbox.state.revision).toBe(before.gateway);
  });
});
