import { afterAll, beforeEach } from "vitest";

// Setup file of every project. The functions under test write JSON log lines and EMF metrics straight to stdout and
// stderr, as they do in Lambda; a passing run shows only the reporter's lines, so what a test writes is held and
// printed only when that test fails (what its hooks wrote with it), or when a file's hooks fail (what they wrote).
// A test that reads the output spies on the same streams (test/support/handler-env.ts, captureOutput) over this.
// Console calls are vitest's own to hold: the config's silent: "passed-only".

/** A failing test prints at most this many of the last lines it wrote: enough to see what it saw. */
const SHOWN_LINES = 400;

let held: string[] = [];

type Write = typeof process.stdout.write;
/** The stream's own write, kept on it: a worker runs many files in one process, each loading this file anew. */
const OWN_WRITE = Symbol.for("quiet-output.own-write");
type HeldStream = NodeJS.WriteStream & { [OWN_WRITE]?: Write };

function holding(stream: HeldStream): Write {
  stream[OWN_WRITE] ??= stream.write.bind(stream);
  const write = stream[OWN_WRITE];
  const hold = (chunk: unknown, encoding?: unknown, callback?: unknown): boolean => {
    held.push(typeof chunk === "string" ? chunk : Buffer.from(chunk as Uint8Array).toString("utf8"));
    const done = typeof encoding === "function" ? encoding : callback;
    if (typeof done === "function") queueMicrotask(() => done());
    return true;
  };
  stream.write = hold as Write;
  return write;
}

const stdout = holding(process.stdout);
holding(process.stderr);

function showHeld(title: string): void {
  const lines = held.join("").split("\n");
  held = [];
  if (lines.length === 1 && lines[0] === "") return;
  const cut = Math.max(0, lines.length - SHOWN_LINES);
  const heading = cut > 0 ? `${title} (its last ${SHOWN_LINES} lines of ${lines.length})` : title;
  stdout(`\n--- ${heading}\n${lines.slice(cut).join("\n")}\n--- end\n`);
}

beforeEach(({ task, onTestFailed }) => {
  held = [];
  onTestFailed(() => showHeld(`what "${task.name}" wrote`));
});

// biome-ignore lint/correctness/noEmptyPattern: vitest reads a hook's first parameter as the fixtures it asks for.
afterAll(({}, suite) => {
  if (suite.result?.state === "fail") showHeld(`what ${suite.name}'s hooks wrote`);
  held = [];
});
