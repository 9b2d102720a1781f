import { createInterface } from "node:readline";
import { type Sandbox, startSandbox } from "../sandbox/server";
import { fillLedger } from "./sandbox-fill";

// The sandbox of the benchmark, in its own process so the load generator does not share its event loop. Starts on
// port 0 without faults (after `--fill N` payments recorded straight into the ledger, when asked) and prints one
// JSON line {url, payments}. Answers each stdin line with one JSON line: "cpu" → {cpuMs} (user + system so far);
// "memory" → {payments, rss, heapTotal, heapUsed, external, gc} after a forced GC (run with --expose-gc). Stops when stdin closes.

function cpuMs(): number {
  const { user, system } = process.cpuUsage();
  return (user + system) / 1000;
}

function memory(sandbox: Sandbox) {
  globalThis.gc?.();
  const { rss, heapTotal, heapUsed, external } = process.memoryUsage();
  const payments = sandbox.state.counts().payments;
  return { payments, rss, heapTotal, heapUsed, external, gc: globalThis.gc !== undefined };
}

const fillAt = process.argv.indexOf("--fill");
const sandbox = await startSandbox({ port: 0 });
fillLedger(sandbox, fillAt === -1 ? 0 : Number(process.argv[fillAt + 1]));
console.log(JSON.stringify({ url: sandbox.url, payments: sandbox.state.counts().payments }));

const commands = createInterface({ input: process.stdin });
commands.on("line", (line) => {
  const command = line.trim();
  if (command === "cpu") console.log(JSON.stringify({ cpuMs: cpuMs() }));
  else if (command === "memory") console.log(JSON.stringify(memory(sandbox)));
  else console.log(JSON.stringify({ error: `unknown command ${command}` }));
});
commands.on("close", () => {
  void sandbox.close().then(() => process.exit(0));
});
