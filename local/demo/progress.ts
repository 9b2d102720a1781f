import { Presets, SingleBar } from "cli-progress";

/** Where the demo reports: plain lines, and long steps with a count of their items. */
export interface Progress {
  line(text: string): void;
  /** Runs a long step; `tick` marks items done (one by default). */
  step<T>(label: string, total: number, work: (tick: (done?: number) => void) => Promise<T>): Promise<T>;
}

/** Lines printed per long step without a terminal (about one every 10 %). */
const PLAIN_UPDATES = 10;

/**
 * A bar redrawn in place on a terminal; elsewhere (CI logs, tests) a plain line now and then, so the output stays
 * readable as a log.
 */
export function createProgress(options: {
  readonly write: (text: string) => void;
  readonly tty: boolean;
}): Progress {
  const { write, tty } = options;
  return {
    line: write,
    async step(label, total, work) {
      if (tty) {
        const bar = new SingleBar(
          { format: `${label.padEnd(24)} [{bar}] {value}/{total}`, stream: process.stdout, hideCursor: true },
          Presets.shades_classic,
        );
        bar.start(total, 0);
        try {
          return await work((count = 1) => bar.increment(count));
        } finally {
          bar.stop();
        }
      }
      const every = Math.max(1, Math.ceil(total / PLAIN_UPDATES));
      let done = 0;
      return work((count = 1) => {
        const before = Math.floor(done / every);
        done += count;
        if (Math.floor(done / every) > before || done === total) write(`${label}: ${done}/${total}`);
      });
    },
  };
}
