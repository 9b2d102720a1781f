import { describe, expect, it } from "vitest";
import { z } from "zod";
import { outboxItemKey } from "../../../functions/adapters/dynamodb/dynamodb-outbox";
import { functionNamed } from "../../../functions/function-table";
import { stubContext } from "../../../local/lambda/lambda-context";
import { pendingOutboxes } from "../../../local/lambda/pending-outboxes";
import { streamRecordOf } from "../../../local/lambda/table-stream";
import { captureOutput, TestContainer } from "../../support/handler-env";
import { merchantApiOnStack } from "../../support/merchant-api-handlers";

// The dashboard's revenue figures (README, Revenue report) as Lambda puts them: publish-events counts the MRR
// movements the delivered events carry, per currency; measure-revenue sums the paying subscriptions' plans from the
// list index. Two sign-ups, one moved to 3 seats and the other canceled: the movements add up to the MRR measured.

const { call, stack, signUp } = merchantApiOnStack("mk_test_revenue_metrics_0123456789abcdef");
const container = new TestContainer(stack);
const publishEvents = container.handler(functionNamed("publish-events"));
const measureRevenue = container.handler(functionNamed("measure-revenue"));

const MOVEMENTS = ["NewMRR", "ExpansionMRR", "ContractionMRR", "ChurnedMRR"];

/** Every pending outbox, as the table stream's records of their items (new images only, as local mode's stream). */
async function pendingRecords() {
  const { repository } = stack().delivery;
  const refs = await pendingOutboxes(repository);
  return Promise.all(
    refs.map(async (ref, index) => {
      const key = outboxItemKey(ref);
      return streamRecordOf(
        key,
        { newImage: { ...key, outbox: await repository.readOutbox(ref) } },
        index + 1,
      );
    }),
  );
}

describe("revenue metrics", () => {
  it("puts each delivered movement per currency, and the MRR they add up to once a day", async () => {
    const ids = [];
    for (const _ of [1, 2])
      ids.push(z.object({ subscription_id: z.string() }).parse(await signUp()).subscription_id);
    const [grown = "", canceled = ""] = ids;
    const adjusted = await call("POST", `/v1/subscriptions/${grown}/adjust`, { body: { quantity: 3 } });
    expect(adjusted.status).toBe(200);
    expect((await call("DELETE", `/v1/subscriptions/${canceled}`)).status).toBe(200);

    const output = captureOutput();
    const records = await pendingRecords();
    expect(await publishEvents({ Records: records }, stubContext("publish-events"))).toEqual({
      batchItemFailures: [],
    });
    const moved = output.currencyMetrics(MOVEMENTS);
    const sum = (name: string) =>
      moved.filter((metric) => metric.name === name).reduce((total, { value }) => total + Number(value), 0);
    expect(new Set(moved.map((metric) => metric.currency))).toEqual(new Set(["USD"]));
    expect(sum("NewMRR")).toBeCloseTo(39.8, 2);
    expect(sum("ExpansionMRR")).toBeCloseTo(39.8, 2);
    expect(sum("ContractionMRR")).toBe(0);
    expect(sum("ChurnedMRR")).toBeCloseTo(19.9, 2);

    // The events say the same: the first event of each write that moved the MRR carries its movements.
    const carried = (await stack().events()).flatMap((event) => event.mrr_movements ?? []);
    expect(carried).toEqual(
      expect.arrayContaining([
        { kind: "new", currency: "USD", amount: "19.90" },
        { kind: "expansion", currency: "USD", amount: "39.80" },
        { kind: "churned", currency: "USD", amount: "19.90" },
      ]),
    );
    expect(carried).toHaveLength(4);

    const measured = captureOutput();
    expect(await measureRevenue({}, stubContext("measure-revenue"))).toEqual({
      currencies: [{ currency: "USD", mrr: "59.70", active: 1 }],
    });
    expect(measured.currencyMetrics(["MRR", "PayingSubscriptions"])).toEqual([
      { currency: "USD", name: "MRR", value: 59.7 },
      { currency: "USD", name: "PayingSubscriptions", value: 1 },
    ]);
    expect(sum("NewMRR") + sum("ExpansionMRR") - sum("ContractionMRR") - sum("ChurnedMRR")).toBeCloseTo(
      59.7,
      2,
    );
  });
});
