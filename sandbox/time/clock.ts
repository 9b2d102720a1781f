import { AsyncLocalStorage } from "node:async_hooks";
import { addIsoDuration, parseIsoDuration } from "./iso-duration";

/** Work due at a sandbox time; it sees `clock.now()` equal to its due time while it runs. */
export type ClockTask = (dueAt: Date) => void | Promise<void>;

export interface ScheduledTask {
  readonly dueAt: Date;
  readonly label: string;
  cancel(): void;
}

export interface SandboxClockOptions {
  /** Start time; real now by default. */
  readonly start?: Date;
  /** Called when a task throws; the clock goes on with the next task. Default: console.error. */
  readonly onTaskError?: (error: unknown, label: string) => void;
}

interface Entry {
  readonly at: number;
  readonly seq: number;
  readonly label: string;
  readonly task: ClockTask;
  cancelled: boolean;
}

function earlier(a: Entry, b: Entry): boolean {
  return a.at < b.at || (a.at === b.at && a.seq < b.seq);
}

/** Min-heap of entries by (due time, insertion order): the recurring charger may queue many tasks. */
class TaskHeap {
  readonly #items: Entry[] = [];

  get size(): number {
    return this.#items.length;
  }

  peek(): Entry | undefined {
    return this.#items[0];
  }

  push(entry: Entry): void {
    const items = this.#items;
    items.push(entry);
    let index = items.length - 1;
    while (index > 0) {
      const parent = (index - 1) >> 1;
      const [child, up] = [items[index], items[parent]];
      if (!child || !up || !earlier(child, up)) break;
      [items[index], items[parent]] = [up, child];
      index = parent;
    }
  }

  pop(): Entry | undefined {
    const items = this.#items;
    const top = items[0];
    const last = items.pop();
    if (!top || !last || items.length === 0) return top;
    items[0] = last;
    let index = 0;
    for (;;) {
      let smallest = index;
      for (const child of [2 * index + 1, 2 * index + 2]) {
        const [candidate, current] = [items[child], items[smallest]];
        if (candidate && current && earlier(candidate, current)) smallest = child;
      }
      if (smallest === index) return top;
      const [a, b] = [items[index], items[smallest]];
      if (!a || !b) return top;
      [items[index], items[smallest]] = [b, a];
      index = smallest;
    }
  }

  values(): readonly Entry[] {
    return this.#items;
  }
}

/**
 * The sandbox's notion of time: frozen until moved. Moving it forward runs every task due on the way, one at a
 * time, in due-time order (then scheduling order), each awaited before the next; tasks scheduled by a task run in
 * the same move when they fall due before its end. Moves are serialised; a task must not move the clock itself.
 */
export class SandboxClock {
  #now: number;
  #seq = 0;
  readonly #tasks = new TaskHeap();
  readonly #onTaskError: (error: unknown, label: string) => void;
  #moves: Promise<unknown> = Promise.resolve();
  readonly #insideTask = new AsyncLocalStorage<true>();

  constructor(options: SandboxClockOptions = {}) {
    this.#now = (options.start ?? new Date()).getTime();
    if (Number.isNaN(this.#now)) throw new RangeError("clock start must be a valid date");
    this.#onTaskError =
      options.onTaskError ?? ((error, label) => console.error(`sandbox clock task ${label}:`, error));
  }

  now(): Date {
    return new Date(this.#now);
  }

  /** Queues `task` for `dueAt`; a time not after now runs on the next move (`advance(0)` included). */
  schedule(dueAt: Date, task: ClockTask, label = "task"): ScheduledTask {
    const entry: Entry = { at: dueAt.getTime(), seq: this.#seq++, label, task, cancelled: false };
    if (Number.isNaN(entry.at)) throw new RangeError("task due time must be a valid date");
    this.#tasks.push(entry);
    return {
      dueAt: new Date(entry.at),
      label,
      cancel: () => {
        entry.cancelled = true;
      },
    };
  }

  /** Tasks still queued, in due order. */
  pending(): { dueAt: Date; label: string }[] {
    return [...this.#tasks.values()]
      .filter((entry) => !entry.cancelled)
      .sort((a, b) => (earlier(a, b) ? -1 : 1))
      .map((entry) => ({ dueAt: new Date(entry.at), label: entry.label }));
  }

  /** Moves forward by milliseconds or an ISO 8601 duration ("P31D", "PT1H"); resolves with the new now. */
  advance(by: number | string): Promise<Date> {
    return this.#move(() => {
      if (typeof by === "number") {
        if (!Number.isFinite(by) || by < 0) throw new RangeError("advance needs a non-negative number of ms");
        return this.#now + by;
      }
      const duration = parseIsoDuration(by);
      if (!duration) throw new RangeError(`unsupported ISO 8601 duration: ${by}`);
      return addIsoDuration(new Date(this.#now), duration).getTime();
    });
  }

  /** Moves to `date`: forward runs the due tasks; backward just sets the time (nothing runs). */
  set(date: Date): Promise<Date> {
    return this.#move(() => {
      const target = date.getTime();
      if (Number.isNaN(target)) throw new RangeError("clock time must be a valid date");
      return target;
    });
  }

  /** Runs the tasks already due without moving. */
  runDue(): Promise<Date> {
    return this.advance(0);
  }

  /** A scheduler whose tasks can all be cancelled at once (a sandbox on a shared clock cancels only its own). */
  scope(): ClockScope {
    return new ClockScope(this);
  }

  #move(target: () => number): Promise<Date> {
    if (this.#insideTask.getStore()) {
      return Promise.reject(new Error("a clock task must not move the clock (it would wait for itself)"));
    }
    const move = this.#moves.then(async () => {
      const to = target();
      while (to >= this.#now) {
        const next = this.#tasks.peek();
        if (!next || next.at > to) break;
        this.#tasks.pop();
        if (next.cancelled) continue;
        this.#now = Math.max(this.#now, next.at);
        await this.#run(next);
      }
      this.#now = to;
      return this.now();
    });
    this.#moves = move.catch(() => undefined);
    return move;
  }

  async #run(entry: Entry): Promise<void> {
    try {
      await this.#insideTask.run(true, () => entry.task(new Date(entry.at)));
    } catch (error) {
      this.#onTaskError(error, entry.label);
    }
  }
}

/** Schedules on a clock and remembers what it scheduled, so `cancelAll` (on sandbox close) leaves nothing behind. */
export class ClockScope {
  readonly #clock: SandboxClock;
  readonly #tasks = new Set<ScheduledTask>();

  constructor(clock: SandboxClock) {
    this.#clock = clock;
  }

  schedule(dueAt: Date, task: ClockTask, label?: string): ScheduledTask {
    const inner = this.#clock.schedule(
      dueAt,
      (at) => {
        this.#tasks.delete(handle);
        return task(at);
      },
      label,
    );
    const handle: ScheduledTask = {
      dueAt: inner.dueAt,
      label: inner.label,
      cancel: () => {
        this.#tasks.delete(handle);
        inner.cancel();
      },
    };
    this.#tasks.add(handle);
    return handle;
  }

  cancelAll(): void {
    for (const task of this.#tasks) task.cancel();
    this.#tasks.clear();
  }
}
