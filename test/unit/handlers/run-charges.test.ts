import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { compose } from "../../../functions/composition/compose";
import { composedHandler } from "../../../functions/composition/handler-definition";
import { createRuntime } from "../../../functions/composition/runtime";
import { definition, runCharges } from "../../../functions/handlers/run-charges";
import { metrics } from "../../../functions/runtime/observability";
import { scheduledEvent, stubContext } from "../../../local/lambda-context";
import { fakeChargeServices } from "../../support/fake-billing";
import { spyOnMetrics } from "../../support/metric-spy";

let recorded: ReturnType<typeof spyOnMetrics>;

beforeEach(() => {
  recorded = spyOnMetrics();
});
afterEach(() => metrics.clearMetrics());

function servicesWithDue(pages: number[]) {
  const fakes = fakeChargeServices();
  let n = 0;
  fakes.repository.duePages = pages.map((size) =>
    Array.from({ length: size }, () => ({ subscription_id: `sub_${++n}`, period: 1 })),
  );
  return fakes;
}

describe("runCharges", () => {
  it("enqueues one message per due subscription and puts DueSubscriptionsEnqueued", async () => {
    const { deps, queued } = servicesWithDue([10, 3]);
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
    const { deps } = servicesWithDue([1]);
    expect((await runCharges(event, deps)).enqueued).toBe(1);
  });

  it("puts 0 when nothing is due, so the metric never lacks data", async () => {
    const { deps } = servicesWithDue([]);
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
