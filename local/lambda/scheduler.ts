import { Cron } from "croner";
import type { ClockScope, SandboxClock } from "../../sandbox/time/clock";
import { addIsoDuration, parseIsoDuration } from "../../sandbox/time/iso-duration";

// EventBridge Scheduler on the local clock: every schedule of the deployed app fires at its rate or cron times as
// the shared clock passes them, in time order with the sandbox's own timed work (recurring plans, webhook resends).

const RATE = /^rate\((\d+) (minute|minutes|hour|hours|day|days)\)$/;
const CRON = /^cron\((.+)\)$/;
const UNIT_MS = { minute: 60_000, hour: 3_600_000, day: 86_400_000 } as const;

/**
 * The first fire strictly after `after`. A rate counts from `anchor` (when the schedule was created); a cron
 * expression is EventBridge's six fields (minutes hours day-of-month month day-of-week year) in UTC, where `?`
 * means any and day-of-week numbers run 1 (SUN) to 7.
 */
export function nextFire(expression: string, after: Date, anchor: Date): Date {
  const rate = RATE.exec(expression);
  if (rate) {
    const unit = (rate[2] ?? "").replace(/s$/, "") as keyof typeof UNIT_MS;
    const period = Number(rate[1]) * UNIT_MS[unit];
    if (period <= 0) throw new RangeError(`schedule ${expression} has no period`);
    const elapsed = Math.max(0, after.getTime() - anchor.getTime());
    return new Date(anchor.getTime() + (Math.floor(elapsed / period) + 1) * period);
  }
  const cron = CRON.exec(expression);
  if (cron) {
    // croner reads `?` as "now", EventBridge as "any"; the leading 0 is croner's seconds field.
    const pattern = `0 ${(cron[1] ?? "").replaceAll("?", "*")}`;
    const next = new Cron(pattern, { timezone: "UTC", mode: "7-part", alternativeWeekdays: true }).nextRun(
      after,
    );
    if (next === null)
      throw new RangeError(`schedule ${expression} never fires after ${after.toISOString()}`);
    return next;
  }
  throw new RangeError(`schedule ${expression} is neither rate(…) nor cron(…)`);
}

export interface ScheduledJob {
  readonly name: string;
  readonly expression: string;
  /** Runs at a fire time, with the clock standing at it; the clock waits for it before moving on. */
  readonly run: (at: Date) => Promise<void>;
}

/** See LocalStackOptions.jumpResolution. */
export const DEFAULT_JUMP_RESOLUTION = "P1D";

export interface SchedulerOptions {
  /**
   * Fires of one job closer than this are merged into one while the clock jumps (a 31-day jump would otherwise run
   * a 5-minute attempt sweep 8,928 times); when the clock follows real time every fire runs.
   */
  readonly jumpResolutionMs: number;
  readonly onError: (job: string, error: unknown) => void;
  /** Runs after each step of a jump (see jumpTo). */
  readonly afterStep?: () => Promise<void>;
}

export class LocalScheduler {
  readonly #scope: ClockScope;
  readonly #anchor: Date;
  /** Where the clock jump in progress ends. */
  #jumpTarget: Date | undefined;

  constructor(
    private readonly clock: SandboxClock,
    private readonly jobs: readonly ScheduledJob[],
    private readonly options: SchedulerOptions,
  ) {
    this.#scope = clock.scope();
    this.#anchor = clock.now();
    for (const job of jobs) nextFire(job.expression, this.#anchor, this.#anchor);
  }

  /** Schedules every job's first fire. */
  start(): void {
    for (const job of this.jobs) this.#scheduleAfter(job, this.#anchor);
  }

  /**
   * Moves the clock by an ISO 8601 duration, merging fires closer than the jump resolution; a job whose merged fires
   * reach past the last one it ran fires once more at the end, so the jump leaves no due work undone.
   */
  jump(duration: string): Promise<Date> {
    const parsed = parseIsoDuration(duration);
    if (parsed === undefined) throw new RangeError(`unsupported ISO 8601 duration: ${duration}`);
    return this.jumpTo(addIsoDuration(this.clock.now(), parsed));
  }

  /**
   * Moves the clock to `target` one due task at a time, calling afterStep after each (local mode lets the sandbox's
   * deliveries land there): what a task sent reaches its receiver at the time it was sent, as it would while time
   * passes, instead of arriving stamped days before the clock has run on to.
   */
  async jumpTo(target: Date): Promise<Date> {
    this.#jumpTarget = target;
    try {
      for (;;) {
        const next = this.clock.pending()[0];
        if (next === undefined || next.dueAt > target) break;
        await this.clock.set(next.dueAt);
        await this.options.afterStep?.();
      }
      return await this.clock.set(target);
    } finally {
      this.#jumpTarget = undefined;
    }
  }

  stop(): void {
    this.#scope.cancelAll();
  }

  #scheduleNext(job: ScheduledJob, firedAt: Date): void {
    const natural = nextFire(job.expression, firedAt, this.#anchor);
    const target = this.#jumpTarget;
    if (target === undefined || natural > target) {
      this.#scheduleAt(job, natural);
      return;
    }
    const merged = nextFire(
      job.expression,
      new Date(firedAt.getTime() + this.options.jumpResolutionMs - 1),
      this.#anchor,
    );
    this.#scheduleAt(job, merged > target ? target : merged);
  }

  #scheduleAfter(job: ScheduledJob, after: Date): void {
    this.#scheduleAt(job, nextFire(job.expression, after, this.#anchor));
  }

  #scheduleAt(job: ScheduledJob, at: Date): void {
    this.#scope.schedule(
      at,
      async (firedAt) => {
        this.#scheduleNext(job, firedAt);
        try {
          await job.run(firedAt);
        } catch (error) {
          this.options.onError(job.name, error);
        }
      },
      `schedule ${job.name}`,
    );
  }
}
