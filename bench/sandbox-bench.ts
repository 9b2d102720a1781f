import { cpus } from "node:os";
import { z } from "zod";
import { encryptField } from "../functions/gateway/card-crypto";
import { basicAuthorization } from "../functions/gateway/context";
import { keepAliveAgent, type RawRequest, type RawResponse, sendRaw } from "../local/clients/raw-http";
import { TEST_MERCHANT } from "../sandbox/state/merchant-config";
import type { Benchmark, BenchRow } from "./benchmark";
import { LineProcess } from "./line-process";
import { type LoadResult, runLoad } from "./load";
import { filledOrderId } from "./sandbox-fill";

// The sandbox gateway under load: non-ui card payments and retrieves per second against a sandbox in a child
// process (with the CPU shares of sandbox, load generator and everything else, which skews the figures), then its
// memory: empty, after that load, with 100,000 payments filled into the ledger, and after payments on top of those.
// Aims: ≥ 2,000 req/s each without errors, < 200 MB RSS at 100,000 payments.

const CONCURRENCY = 32;
const WARMUP_MS = 1_000;
const DURATION_MS = 5_000;
const FILL = 100_000;
const MIN_REQ_PER_SEC = 2_000;
const MAX_RSS_BYTES = 200 * 1024 * 1024;

const SERVER = new URL("./sandbox-server.ts", import.meta.url);
const MID = TEST_MERCHANT.mid;
const HEADERS = {
  authorization: basicAuthorization(TEST_MERCHANT.apiKey),
  "content-type": "application/json; charset=utf-8",
};
// The fixed IV makes the ciphertext of a field a constant: encrypting once is encrypting every time.
const KEY = { key: TEST_MERCHANT.aesKeyHex };
const CARD = {
  card_number: encryptField("4111111111111111", KEY),
  expiry_date: encryptField("203012", KEY),
  cvc: encryptField("123", KEY),
};
const order = (orderId: string) => ({ order_id: orderId, currency: "USD", amount: "100.00", lang: "EN" });
const benchOrderId = (n: number) => `bench-${n}`;
const BUYER = { name: "Bench Buyer", email: "buyer@example.com" };

const readyLine = z.object({ url: z.string(), payments: z.number() });
const memoryLine = z.object({
  payments: z.number(),
  rss: z.number(),
  heapTotal: z.number(),
  heapUsed: z.number(),
  external: z.number(),
  gc: z.boolean(),
});
type Memory = z.infer<typeof memoryLine>;
const approved = z.object({ rescode: z.literal("0000"), status: z.literal("SALE") });
const found = z.object({ rescode: z.literal("0000"), payment: z.object({ status: z.literal("SALE") }) });

/** A JSON answer of this shape (status 200). */
const answers = (schema: z.ZodType) => (response: RawResponse) => {
  if (response.status !== 200) return false;
  try {
    return schema.safeParse(JSON.parse(response.text)).success;
  } catch {
    return false;
  }
};

function paymentRequest(orderId: string): RawRequest {
  const body = { payment: { ...order(orderId), ...CARD }, merchant: { mid: MID }, buyer: BUYER };
  return { method: "POST", path: "/v1/payments/payment", headers: HEADERS, body: JSON.stringify(body) };
}

function retrieveRequest(orderId: string): RawRequest {
  const body = { mid: MID, key_field: "order_id", payment: order(orderId) };
  return { method: "POST", path: "/v1/payments/retrieve", headers: HEADERS, body: JSON.stringify(body) };
}

/** The sandbox in a child process (--expose-gc), driven over its stdin/stdout line protocol. */
class SandboxProcess {
  private constructor(readonly child: LineProcess) {}

  static async start(args: readonly string[] = []): Promise<{ process: SandboxProcess; url: string }> {
    const { process: child, ready } = await LineProcess.start(SERVER, { nodeOptions: ["--expose-gc"], args });
    try {
      return { process: new SandboxProcess(child), url: readyLine.parse(ready).url };
    } catch (error) {
      await child.stop();
      throw error;
    }
  }

  /** Memory after a forced GC. */
  async memory(): Promise<Memory> {
    return memoryLine.parse(await this.child.ask("memory"));
  }

  /** CPU time (user + system) of the sandbox process so far. */
  async cpuMs(): Promise<number> {
    return this.child.cpuMs();
  }

  stop(): Promise<void> {
    return this.child.stop();
  }
}

const MB = 1024 * 1024;
const round = (value: number, digits = 1) => Number(value.toFixed(digits));
const thousands = (value: number) => Math.round(value).toLocaleString("en-US");

/** A load run, with CPU shares of one core over it (warm-up included): the sandbox's and the whole machine's. */
interface Measured {
  readonly load: LoadResult;
  readonly serverCpu: number;
  /** Everything but the sandbox and this process: other work on the machine skews the figures. */
  readonly otherCpu: number;
}

/** Busy and total CPU time of all cores so far, in ms. */
function machineCpuMs(): { busy: number; total: number } {
  let busy = 0;
  let total = 0;
  for (const { times } of cpus()) {
    const all = times.user + times.nice + times.sys + times.irq + times.idle;
    busy += all - times.idle;
    total += all;
  }
  return { busy, total };
}

async function measure(sandbox: SandboxProcess, run: () => Promise<LoadResult>): Promise<Measured> {
  const [serverBefore, machineBefore, clientBefore] = [
    await sandbox.cpuMs(),
    machineCpuMs(),
    process.cpuUsage(),
  ];
  const started = performance.now();
  const load = await run();
  const elapsed = performance.now() - started;
  const server = (await sandbox.cpuMs()) - serverBefore;
  const machine = machineCpuMs();
  const { user, system } = process.cpuUsage(clientBefore);
  // os.cpus() counts per core: busy / total × cores is the busy share of one core.
  const machineBusy =
    ((machine.busy - machineBefore.busy) / (machine.total - machineBefore.total)) * cpus().length;
  const client = (user + system) / 1000 / elapsed;
  return {
    load,
    serverCpu: server / elapsed,
    otherCpu: Math.max(0, machineBusy - server / elapsed - client),
  };
}

const percent = (share: number) => `${Math.round(share * 100)}%`;

function throughputRow(label: string, { load, serverCpu, otherCpu }: Measured): BenchRow {
  const { reqPerSec, p50Ms, p99Ms, errors, requests, clientCpu } = load;
  const error = load.firstError === undefined ? "" : ` (first: ${load.firstError.slice(0, 80)})`;
  return {
    case: label,
    metrics: {
      reqPerSec: round(reqPerSec),
      p50Ms: round(p50Ms, 2),
      p99Ms: round(p99Ms, 2),
      maxMs: round(load.maxMs, 2),
      requests,
      errors,
      concurrency: CONCURRENCY,
      seconds: DURATION_MS / 1000,
      serverCpu: round(serverCpu, 2),
      clientCpu: round(clientCpu, 2),
      otherCpu: round(otherCpu, 2),
    },
    result:
      `${thousands(reqPerSec)} req/s, p50 ${p50Ms.toFixed(1)} ms, p99 ${p99Ms.toFixed(1)} ms, ` +
      `${errors} errors / ${thousands(requests)}, CPU server ${percent(serverCpu)} client ${percent(clientCpu)} other ${percent(otherCpu)}${error}`,
    target: `>= ${thousands(MIN_REQ_PER_SEC)} req/s, 0 errors`,
    met: reqPerSec >= MIN_REQ_PER_SEC && errors === 0,
  };
}

function memoryRow(label: string, memory: Memory, target: boolean): BenchRow {
  const { payments, rss, heapTotal, heapUsed, external } = memory;
  const mb = (bytes: number) => (bytes / MB).toFixed(1);
  return {
    case: label,
    metrics: {
      payments,
      rssBytes: rss,
      heapTotalBytes: heapTotal,
      heapUsedBytes: heapUsed,
      externalBytes: external,
    },
    result:
      `RSS ${mb(rss)} MB, heap ${mb(heapUsed)} MB used of ${mb(heapTotal)} MB ` +
      `(${thousands(payments)} payments, ${memory.gc ? "after GC" : "no GC"})`,
    target: target ? `< ${MAX_RSS_BYTES / MB} MB RSS` : "",
    met: target ? rss < MAX_RSS_BYTES : undefined,
  };
}

async function throughput(): Promise<BenchRow[]> {
  const { process: sandbox, url } = await SandboxProcess.start();
  try {
    const empty = await sandbox.memory();
    const load = { baseUrl: url, concurrency: CONCURRENCY, warmupMs: WARMUP_MS, durationMs: DURATION_MS };
    const payments = await measure(sandbox, () =>
      runLoad({ ...load, next: (n) => paymentRequest(benchOrderId(n)), succeeded: answers(approved) }),
    );
    const paid = payments.load.issued;
    const retrieves = await measure(sandbox, () =>
      runLoad({ ...load, next: (n) => retrieveRequest(benchOrderId(n % paid)), succeeded: answers(found) }),
    );
    return [
      memoryRow("memory at start (empty ledger)", empty, false),
      throughputRow("POST /v1/payments/payment (card, non-ui)", payments),
      throughputRow("POST /v1/payments/retrieve (by order_id)", retrieves),
      memoryRow("memory after the load above", await sandbox.memory(), false),
    ];
  } finally {
    await sandbox.stop();
  }
}

/** The sandbox with a filled ledger: its memory, then again after payments have been served for a while. */
async function largeLedger(): Promise<BenchRow[]> {
  const { process: sandbox, url } = await SandboxProcess.start(["--fill", String(FILL)]);
  try {
    const filled = await sandbox.memory();
    // The filled ledger is the one the server serves: its last payment is found over HTTP.
    const agent = keepAliveAgent();
    const check = await sendRaw(url, agent, retrieveRequest(filledOrderId(FILL - 1))).finally(() =>
      agent.destroy(),
    );
    if (!answers(found)(check)) throw new Error(`the filled ledger is not served: ${check.text}`);
    await runLoad({
      baseUrl: url,
      concurrency: CONCURRENCY,
      warmupMs: WARMUP_MS,
      durationMs: DURATION_MS,
      next: (n) => paymentRequest(benchOrderId(n)),
      succeeded: answers(approved),
    });
    return [
      memoryRow(`memory with ${thousands(FILL)} payments`, filled, true),
      memoryRow("  and after payment load as above", await sandbox.memory(), false),
    ];
  } finally {
    await sandbox.stop();
  }
}

export const sandboxBenchmark: Benchmark = {
  name: "sandbox",
  description: `sandbox gateway: ${CONCURRENCY} keep-alive connections, ${WARMUP_MS / 1000} s warm-up + ${DURATION_MS / 1000} s per endpoint; RSS at ${thousands(FILL)} payments`,
  async run() {
    return [...(await throughput()), ...(await largeLedger())];
  },
};
