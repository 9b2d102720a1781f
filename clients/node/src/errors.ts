import type { components } from "./openapi-types.js";

/** The merchant API's error envelope: `{"error": {code, message, field?, decline?}}`. */
export type ErrorEnvelope = components["schemas"]["Error"];
/** Why a payment was declined, and what can be done about it (a 422's `decline`). */
export type Decline = NonNullable<ErrorEnvelope["error"]["decline"]>;

/**
 * An answer of the API that is not a success: its HTTP status and the envelope's `code`, `message`, the `field` a
 * 400 names, and a declined payment's `decline`. `retryAfterSeconds` is the Retry-After of a 503 or a 409 still in
 * progress.
 */
export class BillingApiError extends Error {
  override readonly name = "BillingApiError";
  readonly status: number;
  readonly code: string;
  readonly field: string | undefined;
  readonly decline: Decline | undefined;
  readonly retryAfterSeconds: number | undefined;

  constructor(status: number, envelope: unknown, headers?: Headers) {
    const error = errorOf(envelope);
    super(error?.message ?? `HTTP ${status}`);
    this.status = status;
    this.code = error?.code ?? `http_${status}`;
    this.field = error?.field;
    this.decline = error?.decline;
    const retryAfter = Number(headers?.get("retry-after") ?? Number.NaN);
    this.retryAfterSeconds = Number.isFinite(retryAfter) ? retryAfter : undefined;
  }
}

/** The envelope's error, when the body is one. */
function errorOf(body: unknown): ErrorEnvelope["error"] | undefined {
  if (typeof body !== "object" || body === null || !("error" in body)) return undefined;
  const { error } = body as { error: unknown };
  if (typeof error !== "object" || error === null) return undefined;
  const { code, message } = error as Record<string, unknown>;
  return typeof code === "string" && typeof message === "string"
    ? (error as ErrorEnvelope["error"])
    : undefined;
}
