import { createInterface } from "node:readline";
import { parseArgs } from "node:util";
import { sqsClientOf } from "../functions/adapters/aws/sqs-client";
import { compose } from "../functions/composition/compose";
import { createRuntime } from "../functions/composition/runtime";
import { EventSourceMapping } from "../local/lambda/event-source-mapping";
import { LambdaFunctions } from "../local/lambda/lambda-functions";
import { LOCAL_GATEWAY_TUNING } from "../local/stack/billing-stack";

// The charge worker of the charge-throughput benchmark in a process of its own, as a Lambda container is: the real
// process-charges handler over a composition of this process's environment (the stack's variables and
// AWS_ENDPOINT_URL_*, so the SDK resolves the emulators itself), behind the local SQS event source mapping. Only
// the clock is handed over: the stack's clock stands still at --now. Prints one JSON line {ready} once polling; answers
// each stdin line "cpu" with {cpuMs} (user + system so far). Stops when stdin closes.

const { values } = parseArgs({
  options: {
    now: { type: "string" },
    concurrency: { type: "string" },
    "batch-size": { type: "string" },
  },
});
const now = new Date(values.now ?? "");
const queueUrl = process.env.CHARGE_QUEUE_URL;
if (Number.isNaN(now.getTime()) || queueUrl === undefined) {
  throw new Error("the charge worker needs --now and CHARGE_QUEUE_URL");
}

const runtime = createRuntime({ clock: { now: () => new Date(now) } });
const functions = new LambdaFunctions(compose(runtime, process.env, LOCAL_GATEWAY_TUNING));
const mapping = new EventSourceMapping({
  client: sqsClientOf(runtime),
  queueUrl,
  batchSize: Number(values["batch-size"] ?? 10),
  concurrency: Number(values.concurrency ?? 1),
  invoke: (event) => functions.invoke("process-charges", event),
  onError: (error) => console.error("charge worker:", error),
  idleMs: 50,
});
mapping.start();
console.log(JSON.stringify({ ready: true }));

const commands = createInterface({ input: process.stdin });
commands.on("line", (line) => {
  const { user, system } = process.cpuUsage();
  if (line.trim() === "cpu") console.log(JSON.stringify({ cpuMs: (user + system) / 1000 }));
  else console.log(JSON.stringify({ error: `unknown command ${line.trim()}` }));
});
commands.on("close", () => {
  void mapping.stop().then(() => {
    runtime.close();
    process.exit(0);
  });
});
