import type { z } from "zod";
import { GatewayRequestError, parseRequest } from "../../functions/gateway/errors";

/** The error a request schema raises, or undefined when it accepts the input. */
export function requestError(schema: z.ZodType, input: unknown): GatewayRequestError | undefined {
  try {
    parseRequest(schema, input);
    return undefined;
  } catch (error) {
    if (error instanceof GatewayRequestError) return error;
    throw error;
  }
}

/** The field a request schema names when it refuses the input, or undefined when it accepts it. */
export const rejectedField = (schema: z.ZodType, input: unknown) => requestError(schema, input)?.field;
