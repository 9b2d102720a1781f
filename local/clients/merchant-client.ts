import pRetry from "p-retry";
import type { z } from "zod";
import { IDEMPOTENCY_KEY_HEADER } from "../../functions/api/merchant-api-schemas";
import { errorBody } from "../../functions/api/merchant-api-views";

export interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

/** An answer that does not settle the request: the merchant repeats it (the same Idempotency-Key on a POST). */
class Unsettled extends Error {
  override readonly name = "Unsettled";
}

/** 5xx, or the first request with this key still running (409 request_in_progress). */
function settles({ status, body }: ApiAnswer): boolean {
  if (status >= 500) return false;
  const error = errorBody.safeParse(body);
  return !(status === 409 && error.success && error.data.error.code === "request_in_progress");
}

/** Every request of a merchant's program runs at most this long (the API's own gateway calls time out first). */
const REQUEST_TIMEOUT_MS = 30_000;

/**
 * The merchant API as a merchant's program calls it: bearer key, JSON, an Idempotency-Key on every POST, and what a
 * careful merchant does when an answer is lost or a 5xx: the same request again with the same key (the API
 * promises that this never pays twice). The repeats are counted.
 */
export class MerchantClient {
  #retries = 0;

  constructor(
    private readonly baseUrl: string,
    private readonly apiKey: string,
    private readonly retryDelayMs = 50,
  ) {}

  /** Requests repeated after a 5xx, a request still in progress or a failed connection. */
  get retries(): number {
    return this.#retries;
  }

  post(path: string, body: unknown, idempotencyKey: string): Promise<ApiAnswer> {
    return this.#settled("POST", path, body, idempotencyKey);
  }

  /** DELETE, with an optional body (a cancel at period end, a refund). */
  delete(path: string, body?: unknown): Promise<ApiAnswer> {
    return this.#settled("DELETE", path, body);
  }

  /** A read that must succeed: parsed with the view's schema. */
  async get<S extends z.ZodType>(path: string, view: S): Promise<z.output<S>> {
    const answer = await this.#settled("GET", path);
    if (answer.status !== 200) throw new Error(`GET ${path} answered ${answer.status}`);
    return view.parse(answer.body);
  }

  #settled(method: string, path: string, body?: unknown, idempotencyKey?: string): Promise<ApiAnswer> {
    return pRetry(
      async () => {
        const answer = await this.#send(method, path, body, idempotencyKey);
        if (!settles(answer)) throw new Unsettled(`${method} ${path} answered ${answer.status}`);
        return answer;
      },
      {
        retries: 10,
        minTimeout: this.retryDelayMs,
        maxTimeout: 20 * this.retryDelayMs,
        onFailedAttempt: () => {
          this.#retries += 1;
        },
      },
    );
  }

  async #send(method: string, path: string, body: unknown, idempotencyKey: string | undefined) {
    const response = await fetch(`${this.baseUrl}${path}`, {
      method,
      headers: {
        authorization: `Bearer ${this.apiKey}`,
        ...(body === undefined ? {} : { "content-type": "application/json" }),
        ...(idempotencyKey === undefined ? {} : { [IDEMPOTENCY_KEY_HEADER]: idempotencyKey }),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      signal: AbortSignal.timeout(REQUEST_TIMEOUT_MS),
    });
    const text = await response.text();
    return { status: response.status, body: text === "" ? undefined : (JSON.parse(text) as unknown) };
  }
}
