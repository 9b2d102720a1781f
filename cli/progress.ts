import { Writable } from "node:stream";
import { type GenericFormatter, MultiBar } from "cli-progress";
import type { CliIo, CliStream } from "./cli-io";

// Long commands (clock advance, events replay, reconcile, dlq redrive, charge-run) say how far they are, on stderr
// only, so that stdout stays what the command answers (a summary, or --json). On a terminal a bar is redrawn in
// place and cleared at the end; elsewhere (tests, CI, a pipe) there is no bar, only the notes the command writes
// for a step or a phase, one line each.

export interface Progress {
  /** Whether a bar is drawn (stderr is a terminal): work done only to feed the bar can be skipped otherwise. */
  readonly drawn: boolean;
  /** How far: `done` of the total (when there is one), and a word on it, e.g. "120 events". */
  update(done: number, detail?: string): void;
  /** Sets the total once it is known (or corrects it). */
  setTotal(total: number): void;
  /** A line that stays: above the bar on a terminal, a line of stderr elsewhere. */
  note(text: string): void;
}

/** What a progress line shows: its label, the steps when their count is known, and whether to count in percent. */
export interface ProgressLine {
  readonly label: string;
  readonly total?: number;
  /** The steps are no things to count (milliseconds of clock time): a percentage instead of done/total. */
  readonly percent?: boolean;
}

/** Seconds as the bar shows them: 42s, 3m05s. */
const elapsedText = (seconds: number) =>
  seconds < 60 ? `${seconds}s` : `${Math.floor(seconds / 60)}m${String(seconds % 60).padStart(2, "0")}s`;

const BAR_SIZE = 30;

/** The bar's line: with a total, a bar and a count (or percentage); without one, the word on it and the time so far. */
function formatterOf({ label, percent }: ProgressLine): GenericFormatter {
  return (_options, params, payload: { readonly detail?: string }) => {
    const elapsed = elapsedText(Math.round(((params.stopTime ?? Date.now()) - params.startTime) / 1000));
    const detail = payload.detail ? ` ${payload.detail}` : "";
    if (params.total <= 0) return `${label}${detail} | ${elapsed}`;
    const done = Math.min(1, Math.max(0, params.progress));
    const filled = Math.round(done * BAR_SIZE);
    const bar = `${"█".repeat(filled)}${"░".repeat(BAR_SIZE - filled)}`;
    const count = percent ? `${Math.floor(done * 100)}%` : `${params.value}/${params.total}`;
    return `${label} ${bar} ${count}${detail} | ${elapsed}`;
  };
}

/** The terminal cli-progress draws on: the CLI's stderr, with its width. */
function terminalOf(stderr: CliStream): NodeJS.WritableStream {
  const stream = new Writable({
    write(chunk, _encoding, done) {
      stderr.write(String(chunk));
      done();
    },
  });
  return Object.assign(stream, { isTTY: true, columns: stderr.columns ?? 80 });
}

/** Notes only, one line each (stderr is no terminal). */
const plainProgress = (stderr: CliStream): Progress => ({
  drawn: false,
  update: () => undefined,
  setTotal: () => undefined,
  note: (text) => stderr.write(`${text}\n`),
});

/**
 * Runs `work` with a progress line on stderr (see above). The bar is gone when `work` ends, however it ends; its
 * notes stay.
 */
export async function withProgress<T>(
  io: CliIo,
  line: ProgressLine,
  work: (progress: Progress) => Promise<T>,
): Promise<T> {
  if (io.stderr.isTTY !== true) return work(plainProgress(io.stderr));
  const bars = new MultiBar({
    stream: terminalOf(io.stderr),
    format: formatterOf(line),
    clearOnComplete: true,
    // Nothing to restore if the operator presses Ctrl-C mid-way: the cursor stays on, lines wrap as ever.
    hideCursor: false,
    linewrap: true,
  });
  const bar = bars.create(line.total ?? 0, 0, { detail: "" });
  let detail = "";
  try {
    return await work({
      drawn: true,
      update(done, word) {
        detail = word ?? detail;
        bar.update(done, { detail });
      },
      setTotal: (count) => bar.setTotal(count),
      note: (text) => bars.log(`${text}\n`),
    });
  } finally {
    // Draws what was logged since the last redraw before the bar is cleared.
    bars.update();
    bars.stop();
  }
}
