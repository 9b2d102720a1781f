import { spawn } from "node:child_process";
import { mkdtemp, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import * as z from "zod";
import type { BenchRow } from "./benchmark";

// `npm run bench -- --baseline <git ref>`: the same benchmarks run at another commit in the same invocation, so a
// figure that depends on the machine (its load, its CPU) is compared with one measured beside it, not with an old one.
// The ref is checked out in a temporary worktree with its own `npm ci` (its dependencies may differ), and each
// benchmark runs there through that commit's own runner, just before ours.

const REPOSITORY = new URL("..", import.meta.url).pathname;

/** A benchmark's results file, as every runner since the results were first written leaves it. */
const resultsFile = z.object({
  rows: z.array(
    z.object({
      case: z.string(),
      metrics: z.record(z.string(), z.number()),
      result: z.string(),
      target: z.string(),
      met: z.boolean().optional(),
    }),
  ),
});

/** Runs `command` in `cwd`, its output on our stderr (the table stays ours); resolves to its exit code. */
function run(command: string, args: readonly string[], cwd: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { cwd, stdio: ["ignore", process.stderr, process.stderr] });
    child.once("error", reject);
    child.once("exit", (code) => resolve(code ?? 1));
  });
}

async function mustRun(command: string, args: readonly string[], cwd: string): Promise<void> {
  const code = await run(command, args, cwd);
  if (code !== 0) throw new Error(`${command} ${args.join(" ")} exited ${code} in ${cwd}`);
}

export interface Baseline {
  /** The ref as asked, and the commit it named. */
  readonly ref: string;
  readonly commit: string;
  /** The rows `name` gives at the baseline; undefined when that commit has no such benchmark or it failed. */
  rows(name: string): Promise<readonly BenchRow[] | undefined>;
  close(): Promise<void>;
}

/** Checks `ref` out in a temporary worktree and installs its dependencies, ready to run its benchmarks. */
export async function openBaseline(ref: string): Promise<Baseline> {
  const directory = await mkdtemp(join(tmpdir(), "bench-baseline-"));
  const commit = await new Promise<string>((resolve, reject) => {
    const child = spawn("git", ["rev-parse", "--verify", `${ref}^{commit}`], { cwd: REPOSITORY });
    let out = "";
    child.stdout.on("data", (chunk: Buffer) => {
      out += chunk.toString();
    });
    child.once("error", reject);
    child.once("exit", (code) =>
      code === 0 ? resolve(out.trim()) : reject(new Error(`${ref} names no commit here`)),
    );
  });
  const close = async () => {
    await run("git", ["worktree", "remove", "--force", directory], REPOSITORY);
    await rm(directory, { recursive: true, force: true });
  };
  try {
    console.error(`baseline: ${ref} (${commit.slice(0, 7)}) in ${directory}`);
    await mustRun("git", ["worktree", "add", "--detach", directory, commit], REPOSITORY);
    await mustRun("npm", ["ci", "--no-audit", "--no-fund", "--prefer-offline"], directory);
  } catch (error) {
    await close();
    throw error;
  }
  return {
    ref,
    commit,
    async rows(name) {
      const code = await run("npx", ["tsx", "bench/run.ts", "--only", name], directory);
      // A benchmark that missed its target exits 1 and still wrote its results; one it does not know wrote none.
      const file = join(directory, "bench", "results", `${name}.json`);
      const text = await readFile(file, "utf8").catch(() => undefined);
      if (text === undefined) {
        console.error(`baseline: ${name} wrote no results at ${ref} (exit ${code})`);
        return undefined;
      }
      await rm(file);
      return resultsFile.parse(JSON.parse(text)).rows;
    },
    close,
  };
}

/**
 * Our rows with, after each, the baseline's row of the same case (its case named by the ref), so each figure stands
 * beside the one it replaces; a baseline row of a case we no longer have follows the last of ours.
 */
export function besideBaseline(
  ours: readonly BenchRow[],
  baseline: readonly BenchRow[] | undefined,
  ref: string,
): BenchRow[] {
  if (baseline === undefined) return [...ours];
  const at = (row: BenchRow): BenchRow => ({
    case: `${row.case} @ ${ref}`,
    metrics: row.metrics,
    result: row.result,
    target: "",
  });
  const byCase = new Map(baseline.map((row) => [row.case, row]));
  const rows = ours.flatMap((row) => {
    const before = byCase.get(row.case);
    byCase.delete(row.case);
    return before === undefined ? [row] : [row, at(before)];
  });
  return [...rows, ...[...byCase.values()].map(at)];
}
