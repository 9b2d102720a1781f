import { vi } from "vitest";
import { metrics } from "../../functions/lambda/observability";

/** Records what handlers put into the shared metrics buffer (last value per name) and clears it between tests. */
export function spyOnMetrics() {
  metrics.clearMetrics();
  const spy = vi.spyOn(metrics, "addMetric");
  return {
    values(): Record<string, number> {
      return Object.fromEntries(spy.mock.calls.map(([name, , value]) => [name, value]));
    },
  };
}
