import { randomUUID } from "node:crypto";

// What a careful program does with the merchant API, under every call the client makes: an Idempotency-Key on every
// POST that has none (the API then answers a repeat with the first result and never acts twice), and the same request
// again — the same key with it — after a connection that failed, a 429, a 5xx or a 409 whose first request is still
// running. GETs and DELETEs (a cancel, an endpoint's removal) are safe to repeat as they are.

export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";

export interface RetryOptions {
  /** Repeats after the first try (default 3). 0: never repeat. */
  readonly maxRetries?: number;
  /** The first wait; each next one doubles it, with jitter (default 500 ms). */
  readonly retryDelayMs?: number;
  /** The longest wait, a server's Retry-After included (default 30 s). */
  readonly maxRetryDelayMs?: number;
  /** Each try's limit (default 60 s). */
  readonly timeoutMs?: number;
  /** A new Idempotency-Key (default: a random UUID). */
  readonly idempotencyKey?: () => string;
  /** Told before each repeat: which one (1, 2, …) and why — the answer's status, or the failed connection. */
  readonly onRetry?: (retry: {
    readonly attempt: number;
    readonly status?: number;
    readonly error?: unknown;
  }) => void;
}

type Fetch = (request: Request) => Promise<Response>;

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/** Whether an answer asks for the same request again: throttled, a server error, or the first try still running. */
async function isRetryable(response: Response): Promise<boolean> {
  if (response.status === 429 || response.status >= 500) return true;
  if (response.status !== 409) return false;
  const text = await response.clone().text();
  return text.includes('"request_in_progress"');
}

/** The wait before repeat `attempt` (1, 2, …): the server's Retry-After, or a doubling backoff with full jitter. */
function delayBefore(
  attempt: number,
  response: Response | undefined,
  options: Required<RetryOptions>,
): number {
  const retryAfter = Number(response?.headers.get("retry-after") ?? Number.NaN);
  const wanted = Number.isFinite(retryAfter)
    ? retryAfter * 1000
    : options.retryDelayMs * 2 ** (attempt - 1) * (0.5 + Math.random() / 2);
  return Math.min(wanted, options.maxRetryDelayMs);
}

/** A fetch that keys every POST and repeats what may be repeated safely. */
export function retryingFetch(base: Fetch, retry: RetryOptions = {}): Fetch {
  const options: Required<RetryOptions> = {
    maxRetries: retry.maxRetries ?? 3,
    retryDelayMs: retry.retryDelayMs ?? 500,
    maxRetryDelayMs: retry.maxRetryDelayMs ?? 30_000,
    timeoutMs: retry.timeoutMs ?? 60_000,
    idempotencyKey: retry.idempotencyKey ?? randomUUID,
    onRetry: retry.onRetry ?? (() => undefined),
  };
  return async (request) => {
    if (request.method === "POST" && !request.headers.has(IDEMPOTENCY_KEY_HEADER))
      request.headers.set(IDEMPOTENCY_KEY_HEADER, options.idempotencyKey());
    for (let attempt = 0; ; attempt++) {
      const last = attempt >= options.maxRetries;
      const signal = AbortSignal.any([request.signal, AbortSignal.timeout(options.timeoutMs)]);
      let response: Response;
      try {
        response = await base(new Request(request.clone(), { signal }));
      } catch (error) {
        // The caller's own abort ends it; a failed connection or a timeout is repeated.
        if (last || request.signal.aborted) throw error;
        options.onRetry({ attempt: attempt + 1, error });
        await sleep(delayBefore(attempt + 1, undefined, options));
        continue;
      }
      if (last || !(await isRetryable(response))) return response;
      await response.body?.cancel();
      options.onRetry({ attempt: attempt + 1, status: response.status });
      await sleep(delayBefore(attempt + 1, response, options));
    }
  };
}
