import { describe, expect, it } from "vitest";
import { ZodError } from "zod";
import { FaultInjector, parseFaultConfig } from "../../../../sandbox/faults/faults";

const decisions = (injector: FaultInjector, route: string, count: number) =>
  Array.from({ length: count }, () => injector.decideRequest(route));

describe("FaultInjector", () => {
  it("decides nothing without configuration", () => {
    const injector = new FaultInjector(1);
    expect(
      decisions(injector, "payments.payment", 50).every((d) => d.action === "none" && d.latencyMs === 0),
    ).toBe(true);
    expect(injector.decideDelivery("duplicateStatusUrl")).toBe(false);
  });

  it("is deterministic from the seed, per route, whatever other routes do", () => {
    const config = {
      global: { errorRate: 0.3, resetRate: 0.1, timeoutAfterCommitRate: 0.2, latencyJitterMs: 50 },
    };
    const first = new FaultInjector(7, config);
    const second = new FaultInjector(7, config);
    decisions(second, "other.route", 13); // interleaved traffic elsewhere does not shift this route's stream
    expect(decisions(first, "payments.cancel", 200)).toEqual(decisions(second, "payments.cancel", 200));
    const otherSeed = new FaultInjector(8, config);
    expect(decisions(otherSeed, "payments.cancel", 200)).not.toEqual(
      decisions(new FaultInjector(7, config), "payments.cancel", 200),
    );
  });

  it("applies the rates roughly and with reset > error > timeout precedence", () => {
    const injector = new FaultInjector(3, { errorRate: 0.25 });
    const results = decisions(injector, "r", 4000);
    const errors = results.filter((d) => d.action === "error").length / results.length;
    expect(errors).toBeGreaterThan(0.22);
    expect(errors).toBeLessThan(0.28);
    const always = new FaultInjector(3, { resetRate: 1, errorRate: 1, timeoutAfterCommitRate: 1 });
    expect(always.decideRequest("r").action).toBe("reset");
    always.configure({ errorRate: 1, timeoutAfterCommitRate: 1 });
    expect(always.decideRequest("r").action).toBe("error");
  });

  it("adds latency plus a jitter within bounds", () => {
    const injector = new FaultInjector(5, { latencyMs: 100, latencyJitterMs: 20 });
    const latencies = decisions(injector, "r", 500).map((d) => d.latencyMs);
    expect(Math.min(...latencies)).toBeGreaterThanOrEqual(100);
    expect(Math.max(...latencies)).toBeLessThanOrEqual(120);
    expect(new Set(latencies).size).toBeGreaterThan(5);
  });

  it("overlays per-route overrides on the global settings", () => {
    const injector = new FaultInjector(1, {
      global: { errorRate: 1, latencyMs: 5 },
      routes: { "payments.retrieve": { errorRate: 0 } },
    });
    expect(injector.settingsFor("payments.retrieve")).toMatchObject({ errorRate: 0, latencyMs: 5 });
    expect(injector.decideRequest("payments.retrieve").action).toBe("none");
    expect(injector.decideRequest("payments.payment").action).toBe("error");
    expect(injector.decideDelivery("duplicateStatusUrl", "payments.payment")).toBe(false);
  });

  it("counts injected faults in total and per route", () => {
    const injector = new FaultInjector(1, {
      global: { errorRate: 1, latencyMs: 1, duplicateStatusUrlRate: 1 },
    });
    injector.decideRequest("a");
    injector.decideRequest("a");
    injector.decideRequest("b");
    injector.decideDelivery("duplicateStatusUrl", "a");
    injector.decideDelivery("duplicateStatusUrl");
    const counters = injector.counters();
    expect(counters.total).toMatchObject({
      requests: 3,
      error: 3,
      latency: 3,
      duplicateStatusUrl: 2,
      reset: 0,
    });
    expect(counters.byRoute.a).toMatchObject({ requests: 2, error: 2, duplicateStatusUrl: 1 });
    injector.resetCounters();
    expect(injector.counters().total.requests).toBe(0);
  });

  it("validates configuration and names the bad field", () => {
    const fieldOf = (input: unknown) => {
      try {
        parseFaultConfig(input);
        return "valid";
      } catch (error) {
        return error instanceof ZodError ? error.issues[0]?.path.join(".") : "other";
      }
    };
    expect(fieldOf({ errorRate: 0.5 })).toBe("valid");
    expect(fieldOf({ errorRate: 1.5 })).toBe("errorRate");
    expect(fieldOf({ routes: { "payments.cancel": { resetRate: -1 } } })).toBe(
      "routes.payments.cancel.resetRate",
    );
    expect(fieldOf({ global: { latencyMs: 1.5 } })).toBe("global.latencyMs");
    expect(fieldOf({ errorRat: 0.5 })).toBe("");
    const injector = new FaultInjector(1, { errorRate: 0.5 });
    expect(() => injector.configure({ errorRate: 2 })).toThrow(ZodError);
    expect(injector.config).toEqual({ global: { errorRate: 0.5 }, routes: {} });
  });
});
