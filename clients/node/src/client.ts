import createClient, { type Client } from "openapi-fetch";
import { BillingApiError } from "./errors.js";
import type { paths } from "./openapi-types.js";
import { type RetryOptions, retryingFetch } from "./retrying-fetch.js";

export type { paths } from "./openapi-types.js";

export interface BillingClientOptions extends RetryOptions {
  /** Where the API is served: a deployment's ApiUrl, or local mode's (`npm start` prints it). */
  readonly baseUrl: string;
  /** The merchant API key (sent as a bearer token). */
  readonly apiKey: string;
  /** Default: the global fetch. */
  readonly fetch?: (request: Request) => Promise<Response>;
}

/** The merchant API, path by path, typed from its OpenAPI document (openapi-fetch). */
export type BillingClient = Client<paths>;

/**
 * A client of the merchant API: every call is typed by its path and method, every POST carries an Idempotency-Key
 * (one of yours, or a new one), and a failed connection, a 429, a 5xx or a request still in progress is repeated with
 * the same key, so a repeat never acts twice.
 */
export function createBillingClient(options: BillingClientOptions): BillingClient {
  const base = options.fetch ?? ((request: Request) => fetch(request));
  return createClient<paths>({
    baseUrl: options.baseUrl.replace(/\/+$/, ""),
    headers: { authorization: `Bearer ${options.apiKey}` },
    fetch: retryingFetch(base, options),
  });
}

/** What every call of the client answers (openapi-fetch): the data, or the error, and the response itself. */
interface Answer<T> {
  readonly data?: T;
  readonly error?: unknown;
  readonly response: Response;
}

/**
 * The data of a call that succeeded, typed as the document says; anything else is thrown as a BillingApiError with
 * the envelope's code, field and decline. `const subscription = await ok(billing.POST("/v1/subscriptions", {body}))`.
 */
export async function ok<T>(call: Promise<Answer<T>>): Promise<T> {
  const { data, error, response } = await call;
  if (!response.ok || data === undefined) throw new BillingApiError(response.status, error, response.headers);
  return data;
}

/** Whether the answer was the one kept for an earlier request with the same Idempotency-Key. */
export const isReplayed = (response: Response) => response.headers.get("idempotent-replayed") === "true";
