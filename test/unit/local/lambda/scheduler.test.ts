import { describe, expect, it } from "vitest";
import { LocalScheduler, nextFire } from "../../../../local/lambda/scheduler";
import { SandboxClock } from "../../../../sandbox/time/clock";

const at = (iso: string) => new Date(iso);

describe("nextFire", () => {
  const anchor = at("2027-03-01T10:00:00Z");

  it("counts a rate from the schedule's creation", () => {
    expect(nextFire("rate(1 hour)", anchor, anchor)).toEqual(at("2027-03-01T11:00:00Z"));
    expect(nextFire("rate(5 minutes)", at("2027-03-01T10:07:00Z"), anchor)).toEqual(
      at("2027-03-01T10:10:00Z"),
    );
    expect(nextFire("rate(2 days)", at("2027-03-03T10:00:00Z"), anchor)).toEqual(at("2027-03-05T10:00:00Z"));
  });

  it("reads EventBridge cron: minutes hours day month day-of-week year, ? as any, UTC", () => {
    expect(nextFire("cron(30 3 * * ? *)", anchor, anchor)).toEqual(at("2027-03-02T03:30:00Z"));
    // 2 is Monday in EventBridge's numbering (1 = Sunday); 2027-03-01 is a Monday.
    expect(nextFire("cron(0 9 ? * 2 *)", anchor, anchor)).toEqual(at("2027-03-08T09:00:00Z"));
    expect(nextFire("cron(0 0 1 * ? *)", anchor, anchor)).toEqual(at("2027-04-01T00:00:00Z"));
  });

  it("refuses anything else, naming the expression", () => {
    expect(() => nextFire("every hour", anchor, anchor)).toThrow(/every hour/);
    expect(() => nextFire("rate(0 hours)", anchor, anchor)).toThrow(/no period/);
  });
});

describe("LocalScheduler", () => {
  const start = at("2027-03-01T10:00:00Z");
  it("fires every due time while the clock follows time step by step", async () => {
    const clock = new SandboxClock({ start });
    const fired: string[] = [];
    const scheduler = new LocalScheduler(
      clock,
      [
        {
          name: "attemptSweep",
          expression: "rate(5 minutes)",
          run: async (when) => void fired.push(when.toISOString()),
        },
      ],
      {
        jumpResolutionMs: 86_400_000,
        onError: (name, error) => {
          throw new Error(`${name}: ${String(error)}`);
        },
      },
    );
    scheduler.start();
    for (let minute = 0; minute < 20; minute += 1) await clock.advance(60_000);
    expect(fired).toEqual(["10:05", "10:10", "10:15", "10:20"].map((time) => `2027-03-01T${time}:00.000Z`));
    scheduler.stop();
  });

  it("merges fires during a jump, in time order, and fires once more at its end", async () => {
    const clock = new SandboxClock({ start });
    const order: string[] = [];
    const run = (name: string) => async (when: Date) => void order.push(`${name} ${when.toISOString()}`);
    const scheduler = new LocalScheduler(
      clock,
      [
        { name: "charge-run", expression: "rate(1 hour)", run: run("charge-run") },
        { name: "reconcile", expression: "cron(30 3 * * ? *)", run: run("reconcile") },
      ],
      { jumpResolutionMs: 86_400_000, onError: () => undefined },
    );
    scheduler.start();
    expect(await scheduler.jump("P2DT6H")).toEqual(at("2027-03-03T16:00:00Z"));
    expect(order).toEqual([
      "charge-run 2027-03-01T11:00:00.000Z",
      "reconcile 2027-03-02T03:30:00.000Z",
      "charge-run 2027-03-02T11:00:00.000Z",
      "reconcile 2027-03-03T03:30:00.000Z",
      "charge-run 2027-03-03T11:00:00.000Z",
      // Merged fires would have run until 16:00: one more at the jump's end.
      "charge-run 2027-03-03T16:00:00.000Z",
    ]);
    scheduler.stop();
  });
});
