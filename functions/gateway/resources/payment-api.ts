import type { z } from "zod";
import { callMerchantApi, type GatewayContext } from "../context";
import { parseRequest } from "../errors";
import type { CallKind, GatewayResult } from "../result";
import { transactionIdParam } from "../schemas/payment-api";

export type Outcome<T> = Promise<GatewayResult<T>>;

/** What every resource of the payment API (/v1/payments) shares: the context, its POST and mid from the config. */
export function createPaymentApi(context: GatewayContext) {
  const { config } = context;
  return {
    context,
    config,
    post: <S extends z.ZodType>(path: string, kind: CallKind, body: unknown, response: S) =>
      callMerchantApi(context, {
        baseUrl: config.paymentBaseUrl,
        path: `/v1/payments${path}`,
        body,
        kind,
        response,
      }),
    withMid: <T extends object>(input: T) => ({ ...input, mid: config.mid }),
  };
}

export type PaymentApi = ReturnType<typeof createPaymentApi>;

/** A validated transaction_id path segment (EC1002: exactly 24 characters). */
export function transactionSegment(transactionId: string): string {
  return encodeURIComponent(
    parseRequest(transactionIdParam, { transaction_id: transactionId }).transaction_id,
  );
}
