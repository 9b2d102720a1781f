import type { GatewayContext } from "./context";
import { createCancelResource } from "./resources/cancel";
import { createPaymentApi } from "./resources/payment-api";
import { createPaymentWindowResource } from "./resources/payment-window";
import { createPaymentsResource } from "./resources/payments";
import { createRecurringResource } from "./resources/recurring";
import { createRetrieveResource } from "./resources/retrieve";
import { createTokenBillingResource } from "./resources/token-billing";

/**
 * The payment API (/v1/payments): its resources (resources/, one a file) as one client. Every method validates its
 * request before sending (GatewayRequestError naming the field; nothing sent), injects mid from the configuration and
 * encrypts card and wallet data itself. Mutations are sent once; reads (verify, retrieve, receiptUrl) are retried by
 * the transport while the gateway is unavailable.
 */
export function createPaymentClient(context: GatewayContext) {
  const api = createPaymentApi(context);
  const payments = createPaymentsResource(api);
  return {
    ...createPaymentWindowResource(api),
    ...createRetrieveResource(api),
    ...createCancelResource(api),
    ...payments,
    ...createTokenBillingResource(api, payments.payment),
    ...createRecurringResource(api),
  };
}

export type PaymentClient = ReturnType<typeof createPaymentClient>;
