import { execFileSync, spawnSync } from "node:child_process";
import { clockForCommit, faketimeOffset, TEST_CLOCKS, type TestClock } from "./test-clocks";

// Runs the whole suite (`vitest run`, what `npm test` runs) under faketime at each clock of TEST_CLOCKS, one after
// another, and prints a line per clock:
//   npm run test:dates                  every clock
//   npm run test:dates -- leap-day adak the clocks named
//   npm run test:dates -- --commit      the one clock this commit takes (CI's single run of the suite)
// faketime is Debian's package (apt-get install faketime); the monotonic clock is left real, so timers and timeouts
// run as usual.

const args = process.argv.slice(2);

function commitCount(): number {
  return Number(execFileSync("git", ["rev-list", "--count", "HEAD"], { encoding: "utf8" }).trim());
}

function chosen(): readonly TestClock[] {
  if (args.includes("--commit")) return [clockForCommit(commitCount())];
  const names = args.filter((arg) => !arg.startsWith("--"));
  if (names.length === 0) return TEST_CLOCKS;
  const unknown = names.filter((name) => !TEST_CLOCKS.some((clock) => clock.name === name));
  if (unknown.length > 0) {
    console.error(
      `unknown clock ${unknown.join(", ")}: one of ${TEST_CLOCKS.map(({ name }) => name).join(", ")}`,
    );
    process.exit(2);
  }
  return TEST_CLOCKS.filter((clock) => names.includes(clock.name));
}

function runAt(clock: TestClock): { readonly passed: boolean; readonly seconds: number } {
  const started = performance.now();
  console.log(`== the suite at ${clock.at}, TZ=${clock.timeZone} (${clock.name})`);
  const run = spawnSync("faketime", ["-f", faketimeOffset(clock.at, new Date()), "npx", "vitest", "run"], {
    stdio: "inherit",
    env: { ...process.env, TZ: clock.timeZone, FAKETIME_DONT_FAKE_MONOTONIC: "1" },
  });
  if (run.error) {
    console.error(`faketime could not start (${run.error.message}): apt-get install faketime`);
    process.exit(2);
  }
  return { passed: run.status === 0, seconds: Math.round((performance.now() - started) / 1000) };
}

const results = chosen().map((clock) => ({ clock, ...runAt(clock) }));
for (const { clock, passed, seconds } of results)
  console.log(
    `${passed ? "passed" : "FAILED"}  ${clock.name.padEnd(10)} ${clock.at}  TZ=${clock.timeZone}  ${seconds} s`,
  );
process.exit(results.every(({ passed }) => passed) ? 0 : 1);
