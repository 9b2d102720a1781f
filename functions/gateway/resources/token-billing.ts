import { callMerchantApi } from "../context";
import { GatewayRequestError, parseRequest } from "../errors";
import { success } from "../result";
import type { PaymentInput, PaymentResponse } from "../schemas/payments";
import {
  type TokenDeleteResponse,
  type TokenInquiryResponse,
  type TokenRebillInput,
  type TokenRebillResponse,
  tokenDeleteRequest,
  tokenDeleteResponse,
  tokenIdParam,
  tokenInquiryResponse,
  tokenRebillRequest,
  tokenRebillResponse,
} from "../schemas/token-billing";
import type { Outcome, PaymentApi } from "./payment-api";

function tokenSegment(tokenId: string): string {
  return encodeURIComponent(parseRequest(tokenIdParam, { token_id: tokenId }).token_id);
}

/** The seed's payment body requires lang; the token payment leaves it to the gateway, whose default is English. */
const DEFAULT_LANG = "EN";

/** The seed's REBILL answers with the flat verify fields: the same facts as the token payment's nested answer. */
function nestedRebillAnswer(flat: PaymentResponse): TokenRebillResponse {
  return {
    rescode: flat.rescode,
    resmsg: flat.resmsg,
    mid: flat.mid,
    payment: {
      order_id: flat.order_id,
      currency: flat.currency,
      amount: flat.amount,
      transaction_id: flat.transaction_id,
      status: flat.status,
      auth_code: flat.auth_code,
      transaction_date: flat.transaction_date,
      access_country: flat.access_country,
      payment_method: flat.payment_method,
      pay_to: flat.pay_to,
    },
    card_info: {
      card_holder: flat.card_holder,
      card_number1: flat.card_number1,
      card_number4: flat.card_number4,
    },
  };
}

/**
 * Token billing: payments on a stored token, its deletion and inquiry. `payment` is the non-ui payment (payments.ts),
 * which the seed's REBILL form goes through.
 */
export function createTokenBillingResource(
  { context, config, post, withMid }: PaymentApi,
  payment: (input: PaymentInput) => Outcome<PaymentResponse>,
) {
  return {
    /**
     * Token payment (REBILL) on a stored token: POST /tokenbilling/{token_id}/rebill, as the real gateway has it.
     * With `rebillEndpoint: "payment"` the seed's form instead (the non-ui payment with tokenbilling.token_id); its
     * flat answer is returned in the same nested shape.
     */
    async rebill(tokenId: string, input: TokenRebillInput): Outcome<TokenRebillResponse> {
      if (config.rebillEndpoint === "payment") {
        const { payment: order, buyer, ...rest } = input;
        // The seed's non-ui payment requires what the token payment leaves optional.
        if (buyer === undefined)
          throw new GatewayRequestError("buyer", "is required by the seed's REBILL form");
        const outcome = await payment({
          ...rest,
          buyer,
          payment: { ...order, lang: order.lang ?? DEFAULT_LANG },
          tokenbilling: { token_id: parseRequest(tokenIdParam, { token_id: tokenId }).token_id },
        });
        return outcome.kind === "success" ? success(nestedRebillAnswer(outcome.value)) : outcome;
      }
      const path = `/tokenbilling/${tokenSegment(tokenId)}/rebill`;
      const body = parseRequest(tokenRebillRequest, { ...input, merchant: withMid(input.merchant ?? {}) });
      return post(path, "mutation", body, tokenRebillResponse);
    },

    /** Deletes a stored token at the gateway; a deleted token can never be charged again. */
    async deleteToken(tokenId: string): Outcome<TokenDeleteResponse> {
      const path = `/tokenbilling/${tokenSegment(tokenId)}/delete`;
      return post(path, "mutation", parseRequest(tokenDeleteRequest, {}), tokenDeleteResponse);
    },

    /** What the gateway holds for a token (the card's identification values). */
    async inquireToken(tokenId: string): Outcome<TokenInquiryResponse> {
      return callMerchantApi(context, {
        baseUrl: config.paymentBaseUrl,
        path: `/v1/payments/tokenbilling/${tokenSegment(tokenId)}`,
        method: "GET",
        kind: "read",
        response: tokenInquiryResponse,
      });
    },
  };
}
