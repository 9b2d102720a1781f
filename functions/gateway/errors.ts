import type { z } from "zod";

/**
 * A request that breaks the gateway's rules. Raised before anything is sent; names the offending field and never
 * carries the offending value (it may be card data).
 */
export class GatewayRequestError extends Error {
  override readonly name = "GatewayRequestError";
  constructor(
    readonly field: string,
    readonly reason: string,
  ) {
    super(`invalid ${field}: ${reason}`);
  }
}

/** Path of a zod issue as the dotted field name the seeds use (`payment.amount`, `product.0.name`). */
export function fieldOf(issue: z.core.$ZodIssue): string {
  return issue.path.length === 0 ? "(body)" : issue.path.map(String).join(".");
}

/** Parses a request with its schema; the first issue becomes a GatewayRequestError. */
export function parseRequest<T extends z.ZodType>(schema: T, input: unknown): z.output<T> {
  const result = schema.safeParse(input, { reportInput: false });
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  throw issue
    ? new GatewayRequestError(fieldOf(issue), issue.message)
    : new GatewayRequestError("(body)", "invalid");
}
