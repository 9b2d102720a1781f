import type { ChargeGateway, OrderLookup, RebillResult } from "../core/ports";
import { GatewayRequestError } from "../gateway/errors";
import { type GatewayOutcome, success } from "../gateway/outcome";
import type { PaymentClient } from "../gateway/payment-client";

export interface ChargeGatewayOptions {
  /** Language of the gateway's customer-facing texts (receipts, e-mails). */
  readonly lang: string;
}

/** A request the client refused to send is our mistake, not the gateway's: report it as `invalid`, nothing sent. */
async function refusedAsInvalid<T>(call: () => Promise<GatewayOutcome<T>>): Promise<GatewayOutcome<T>> {
  try {
    return await call();
  } catch (error) {
    if (error instanceof GatewayRequestError)
      return { kind: "invalid", code: "REQUEST", message: error.message };
    throw error;
  }
}

/** The charge engine's view of the gateway, on the typed payment client. */
export function createChargeGateway(payments: PaymentClient, { lang }: ChargeGatewayOptions): ChargeGateway {
  return {
    async rebill({ order_id, token_id, amount, currency, customer }): Promise<GatewayOutcome<RebillResult>> {
      const outcome = await refusedAsInvalid(() =>
        payments.rebill({
          token_id,
          payment: { order_id, currency, amount, lang },
          buyer: { name: customer.name, email: customer.email, phone_number: customer.phone },
        }),
      );
      if (outcome.kind !== "success") return outcome;
      // rescode 0000 without a sale is not a charge we can count on: retrieve settles it.
      if (outcome.value.status !== "SALE")
        return { kind: "unknown", reason: `rebill answered status ${outcome.value.status}` };
      return success({ transaction_id: outcome.value.transaction_id });
    },

    async findOrder({ order_id, amount, currency }): Promise<GatewayOutcome<OrderLookup>> {
      const outcome = await refusedAsInvalid(() =>
        payments.retrieve({ key_field: "order_id", payment: { order_id, currency, amount, lang } }),
      );
      if (outcome.kind !== "success") return outcome;
      const { status, transaction_id } = outcome.value.payment;
      return success({ status, transaction_id });
    },
  };
}
