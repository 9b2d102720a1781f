import { describe, expect, it } from "vitest";
import { SandboxClock } from "../../../../sandbox/time/clock";
import { addIsoDuration, parseIsoDuration } from "../../../../sandbox/time/iso-duration";

const START = new Date("2026-01-31T10:00:00.000Z");

describe("ISO 8601 durations", () => {
  it("parses the supported subset", () => {
    expect(parseIsoDuration("P31D")).toEqual({ years: 0, months: 0, days: 31, milliseconds: 0 });
    expect(parseIsoDuration("PT1H")).toEqual({ years: 0, months: 0, days: 0, milliseconds: 3_600_000 });
    expect(parseIsoDuration("P1Y2M3W4DT5H6M7.5S")).toEqual({
      years: 1,
      months: 2,
      days: 25,
      milliseconds: ((5 * 60 + 6) * 60 + 7.5) * 1000,
    });
  });

  it.each(["", "P", "PT", "P1DT", "1D", "P-1D", "PT1.5H", "P1.5D", "p1d", "P1D2"])("refuses %j", (text) => {
    expect(parseIsoDuration(text)).toBeUndefined();
  });

  it("steps months on the calendar, clamped to the month's end", () => {
    const parse = (text: string) => parseIsoDuration(text) ?? expect.fail(text);
    expect(addIsoDuration(START, parse("P1M")).toISOString()).toBe("2026-02-28T10:00:00.000Z");
    expect(addIsoDuration(START, parse("P1Y1M")).toISOString()).toBe("2027-02-28T10:00:00.000Z");
    expect(addIsoDuration(START, parse("P1DT2H")).toISOString()).toBe("2026-02-01T12:00:00.000Z");
  });
});

describe("SandboxClock", () => {
  it("is frozen until moved and starts at the given date", async () => {
    const clock = new SandboxClock({ start: START });
    expect(clock.now()).toEqual(START);
    await expect(clock.advance("PT1H")).resolves.toEqual(new Date("2026-01-31T11:00:00.000Z"));
    await expect(clock.advance(1500)).resolves.toEqual(new Date("2026-01-31T11:00:01.500Z"));
    expect(clock.now()).toEqual(new Date("2026-01-31T11:00:01.500Z"));
  });

  it("starts at real now by default", () => {
    const before = Date.now();
    const now = new SandboxClock().now().getTime();
    expect(now).toBeGreaterThanOrEqual(before);
    expect(now).toBeLessThanOrEqual(Date.now());
  });

  it("runs due tasks in time order, then scheduling order, each seeing its due time", async () => {
    const clock = new SandboxClock({ start: START });
    const ran: string[] = [];
    const at = (minutes: number) => new Date(START.getTime() + minutes * 60_000);
    const record = (name: string) => (dueAt: Date) => {
      ran.push(`${name}@${clock.now().toISOString().slice(11, 16)}`);
      expect(clock.now()).toEqual(dueAt);
    };
    clock.schedule(at(30), record("c"));
    clock.schedule(at(10), record("a"));
    clock.schedule(at(30), record("d"));
    clock.schedule(at(20), record("b"));
    clock.schedule(at(90), record("later"));
    await clock.advance("PT1H");
    expect(ran).toEqual(["a@10:10", "b@10:20", "c@10:30", "d@10:30"]);
    expect(clock.pending().map((task) => task.dueAt)).toEqual([at(90)]);
    await clock.advance("PT1H");
    expect(ran.at(-1)).toBe("later@11:30");
  });

  it("awaits each task before the next and runs tasks scheduled by tasks within the move", async () => {
    const clock = new SandboxClock({ start: START });
    const ran: string[] = [];
    clock.schedule(new Date(START.getTime() + 1000), async () => {
      await new Promise((resolve) => setTimeout(resolve, 20));
      ran.push("slow");
      clock.schedule(new Date(clock.now().getTime() + 1000), () => {
        ran.push("chained");
      });
    });
    clock.schedule(new Date(START.getTime() + 1500), () => {
      ran.push("fast");
    });
    await clock.advance(5000);
    expect(ran).toEqual(["slow", "fast", "chained"]);
  });

  it("set moves forward like advance and backward without running anything", async () => {
    const clock = new SandboxClock({ start: START });
    const ran: string[] = [];
    clock.schedule(new Date("2026-02-01T00:00:00Z"), () => {
      ran.push("due");
    });
    await clock.set(new Date("2026-01-01T00:00:00Z"));
    expect(ran).toEqual([]);
    expect(clock.now()).toEqual(new Date("2026-01-01T00:00:00Z"));
    await clock.set(new Date("2026-03-01T00:00:00Z"));
    expect(ran).toEqual(["due"]);
  });

  it("runs a task scheduled in the past on the next move, and cancelled tasks never", async () => {
    const clock = new SandboxClock({ start: START });
    const ran: string[] = [];
    clock.schedule(new Date(0), () => {
      ran.push("overdue");
    });
    clock
      .schedule(START, () => {
        ran.push("cancelled");
      })
      .cancel();
    await clock.runDue();
    expect(ran).toEqual(["overdue"]);
    expect(clock.now()).toEqual(START);
  });

  it("serialises concurrent moves", async () => {
    const clock = new SandboxClock({ start: START });
    const [first, second] = await Promise.all([clock.advance("PT1H"), clock.advance("PT1H")]);
    expect(first).toEqual(new Date("2026-01-31T11:00:00.000Z"));
    expect(second).toEqual(new Date("2026-01-31T12:00:00.000Z"));
  });

  it("reports a failing task and goes on with the next", async () => {
    const errors: string[] = [];
    const clock = new SandboxClock({ start: START, onTaskError: (_error, label) => errors.push(label) });
    const ran: string[] = [];
    clock.schedule(
      START,
      () => {
        throw new Error("boom");
      },
      "bad",
    );
    clock.schedule(START, () => {
      ran.push("next");
    });
    await clock.runDue();
    expect(errors).toEqual(["bad"]);
    expect(ran).toEqual(["next"]);
  });

  it("refuses a move from inside a task instead of deadlocking", async () => {
    const errors: unknown[] = [];
    const clock = new SandboxClock({ start: START, onTaskError: (error) => errors.push(error) });
    clock.schedule(START, () => clock.advance("PT1S").then(() => undefined));
    await clock.runDue();
    expect(String(errors[0])).toMatch(/must not move the clock/);
  });

  it("refuses bad input", async () => {
    const clock = new SandboxClock({ start: START });
    await expect(clock.advance("P1X")).rejects.toThrow(/unsupported ISO 8601 duration/);
    await expect(clock.advance(-1)).rejects.toThrow(RangeError);
    await expect(clock.set(new Date(Number.NaN))).rejects.toThrow(RangeError);
    expect(() => clock.schedule(new Date(Number.NaN), () => undefined)).toThrow(RangeError);
    expect(clock.now()).toEqual(START);
  });

  it("a scope cancels only its own tasks", async () => {
    const clock = new SandboxClock({ start: START });
    const scope = clock.scope();
    const ran: string[] = [];
    scope.schedule(START, () => {
      ran.push("scoped");
    });
    scope
      .schedule(START, () => {
        ran.push("cancelled alone");
      })
      .cancel();
    clock.schedule(START, () => {
      ran.push("shared");
    });
    scope.cancelAll();
    await clock.runDue();
    expect(ran).toEqual(["shared"]);
  });
});
