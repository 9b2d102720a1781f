import { createBillingClient } from "recurring-billing-client";
import type { z } from "zod";
import { IDEMPOTENCY_KEY_HEADER } from "../../functions/api/merchant-api-schemas";

export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** Every request of a merchant's program runs at most this long (the API's own gateway calls time out first). */
const REQUEST_TIMEOUT_MS = 30_000;

/** A call of the typed client by a path built at run time (openapi-fetch, which the typed methods are). */
type RawCall = (
  path: string,
  init: { body?: unknown; headers?: Record<string, string> },
) => Promise<{ data?: unknown; error?: unknown; response: Response }>;

/**
 * The merchant API as the chaos run, the benchmarks and the try-it page call it by paths they build at run time, with
 * every answer's status: the typed client package underneath (recurring-billing-client), so the repeats are its own —
 * a failed connection, a 429, a 5xx or a request still in progress sent again, with the same Idempotency-Key on a
 * POST (the API promises that this never pays twice), up to 10 times. The repeats are counted.
 */
export class MerchantClient {
  #retries = 0;
  readonly #billing: ReturnType<typeof createBillingClient>;

  constructor(baseUrl: string, apiKey: string, retryDelayMs = 50) {
    this.#billing = createBillingClient({
      baseUrl,
      apiKey,
      maxRetries: 10,
      retryDelayMs,
      maxRetryDelayMs: 20 * retryDelayMs,
      timeoutMs: REQUEST_TIMEOUT_MS,
      onRetry: () => {
        this.#retries += 1;
      },
    });
  }

  /** Requests repeated after a 5xx, a request still in progress or a failed connection. */
  get retries(): number {
    return this.#retries;
  }

  post(path: string, body: unknown, idempotencyKey: string): Promise<ApiAnswer> {
    return this.#send("POST", path, { body, headers: { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey } });
  }

  /** DELETE, with an optional body (a cancel at period end). */
  delete(path: string, body?: unknown): Promise<ApiAnswer> {
    return this.#send("DELETE", path, body === undefined ? {} : { body });
  }

  /** A read that must succeed: parsed with the view's schema. */
  async get<S extends z.ZodType>(path: string, view: S): Promise<z.output<S>> {
    const answer = await this.#send("GET", path, {});
    if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}`);
    return view.parse(answer.body);
  }

  async #send(
    method: "GET" | "POST" | "DELETE",
    path: string,
    init: Parameters<RawCall>[1],
  ): Promise<ApiAnswer> {
    const call = this.#billing[method] as unknown as RawCall;
    const { data, error, response } = await call(path, init);
    return { status: response.status, body: data ?? error };
  }
}
