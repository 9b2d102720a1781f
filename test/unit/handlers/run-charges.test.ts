import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compose } from "../../../functions/composition/compose";
import { composedHandler } from "../../../functions/composition/lambda-entry";
import { createRuntime } from "../../../functions/composition/runtime";
import { functionNamed } from "../../../functions/function-table";
import { run as runCharges } from "../../../functions/handlers/run-charges";
import { metrics } from "../../../functions/lambda/observability";
import { scheduledEvent, stubContext } from "../../../local/lambda/lambda-context";
import { dueSubscription, fakeChargeServices } from "../../support/fake-billing";
import { spyOnMetrics } from "../../support/metric-spy";

const definition = functionNamed("run-charges");

let recorded: ReturnType<typeof spyOnMetrics>;

beforeEach(() => {
  recorded = spyOnMetrics();
});
afterEach(() => metrics.clearMetrics());

/** `count` subscriptions due before START, listed `pageSize` to a page. */
async function servicesWithDue(count: number, pageSize = 10) {
  const fakes = fakeChargeServices({ pageSize });
  for (let n = 1; n <= count; n++) await fakes.repository.createSubscription(dueSubscription(`sub_${n}`));
  return fakes;
}

describe("runCharges", () => {
  it("enqueues one message per due subscription and puts DueSubscriptionsEnqueued", async () => {
    const { deps, queued } = await servicesWithDue(13);
    const report = await runCharges(scheduledEvent(), deps);
    expect(report).toEqual({ enqueued: 13, pages: 2 });
    expect(queued.map((message) => message.subscription_id)).toEqual(
      Array.from({ length: 13 }, (_, n) => `sub_${n + 1}`),
    );
    expect(recorded.values()).toEqual({ DueSubscriptionsEnqueued: 13 });
  });

  it.each([
    ["Scheduler's plain input", {}],
    ["no input", undefined],
    ["null", null],
    ["an envelope with an unreadable time", { ...scheduledEvent(), time: "yesterday" }],
    ["a string", "run now"],
  ])("accepts %s and still runs", async (_case, event) => {
    const { deps } = await servicesWithDue(1);
    expect((await runCharges(event, deps)).enqueued).toBe(1);
  });

  it("puts 0 when nothing is due, so the metric never lacks data", async () => {
    const { deps } = await servicesWithDue(0);
    expect(await runCharges(scheduledEvent(), deps)).toEqual({ enqueued: 0, pages: 0 });
    expect(recorded.values()).toEqual({ DueSubscriptionsEnqueued: 0 });
  });
});

describe("the wrapped handler", () => {
  it("fails its invocation naming every variable it lacks", async () => {
    const runtime = createRuntime({ region: "eu-west-1" });
    const handler = composedHandler(definition, () => compose(runtime, { CHARGE_QUEUE_URL: "not-a-url" }));
    try {
      await expect(handler(scheduledEvent(), stubContext())).rejects.toThrow(
        /TABLE_NAME is not set; CHARGE_QUEUE_URL .*URL/i,
      );
    } finally {
      runtime.close();
    }
  });
});
