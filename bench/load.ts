import { keepAliveAgent, type RawRequest, type RawResponse, sendRaw } from "../local/clients/raw-http";

// A closed-loop HTTP load generator: `concurrency` requests in flight on keep-alive connections, a warm-up whose
// answers are not counted, then a measured window.

export interface LoadOptions {
  readonly baseUrl: string;
  readonly concurrency: number;
  readonly warmupMs: number;
  readonly durationMs: number;
  /** The n-th request (n counts every request, warm-up included, from 0). */
  next(n: number): RawRequest;
  /** Whether an answer is the expected success; anything else counts as an error. */
  succeeded(response: RawResponse): boolean;
}

export interface LoadResult {
  /** Requests started in the measured window. */
  readonly requests: number;
  readonly errors: number;
  readonly reqPerSec: number;
  readonly p50Ms: number;
  readonly p99Ms: number;
  readonly maxMs: number;
  /** CPU time of this (client) process during the measured window, as a share of one core. */
  readonly clientCpu: number;
  /** Requests issued in all (warm-up included): the n of `next` ran from 0 to issued − 1. */
  readonly issued: number;
  readonly firstError?: string;
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return Number.NaN;
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)] ?? Number.NaN;
}

export async function runLoad(options: LoadOptions): Promise<LoadResult> {
  const agent = keepAliveAgent(options.concurrency);
  const start = performance.now();
  const measureFrom = start + options.warmupMs;
  const end = measureFrom + options.durationMs;
  const latencies: number[] = [];
  let issued = 0;
  let errors = 0;
  let lastDone = measureFrom;
  let firstError: string | undefined;
  let cpuAtStart = process.cpuUsage();
  const window = setTimeout(() => {
    cpuAtStart = process.cpuUsage();
  }, options.warmupMs);

  async function worker(): Promise<void> {
    while (performance.now() < end) {
      const request = options.next(issued++);
      const sent = performance.now();
      let ok = false;
      try {
        const response = await sendRaw(options.baseUrl, agent, request);
        ok = options.succeeded(response);
        if (!ok) firstError ??= `HTTP ${response.status} ${response.text.slice(0, 200)}`;
      } catch (error) {
        firstError ??= String(error);
      }
      const done = performance.now();
      if (sent < measureFrom) continue;
      latencies.push(done - sent);
      if (!ok) errors++;
      lastDone = Math.max(lastDone, done);
    }
  }

  try {
    await Promise.all(Array.from({ length: options.concurrency }, worker));
  } finally {
    clearTimeout(window);
    agent.destroy();
  }
  const { user, system } = process.cpuUsage(cpuAtStart);
  const seconds = (lastDone - measureFrom) / 1000;
  latencies.sort((a, b) => a - b);
  return {
    requests: latencies.length,
    errors,
    reqPerSec: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    maxMs: latencies.at(-1) ?? Number.NaN,
    clientCpu: (user + system) / 1e6 / seconds,
    issued,
    firstError,
  };
}
