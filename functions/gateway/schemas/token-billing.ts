import * as z from "zod";
import {
  atMostThree,
  buyer,
  CARD_ALIASES,
  cardInfo,
  foreign,
  merchant,
  merchantInput,
  optionalStrings,
  otherParam,
  productItem,
  responseOptional,
  responseOtherParam,
  responseString,
  windowStatus,
} from "./payment-api";
import { amount, currency, lang, orderId, resultEnvelope, text, withAliases } from "./primitives";

// Token billing (README, The real gateway; not in the seeds): a payment on a stored token, the token's deletion and
// inquiry. A token is created by a payment with tokenbilling.token_creation (payment-window.ts, payments.ts).

/** The token_id path segment of the token-billing endpoints. */
export const tokenIdParam = z.object({ token_id: text(100) });

/**
 * Token payment (REBILL): POST /v1/payments/tokenbilling/{token_id}/rebill. The token is the path parameter, so the
 * body carries the order and the merchant only — no card, no tokenbilling object.
 */
export const tokenRebillRequest = z.strictObject({
  payment: z.strictObject({ order_id: orderId, currency, amount, lang: lang.optional() }),
  merchant,
  buyer: buyer.optional(),
  product: atMostThree(productItem).optional(),
  other_param: otherParam.optional(),
});
export type TokenRebillRequest = z.output<typeof tokenRebillRequest>;
const tokenRebillInput = tokenRebillRequest.extend({ merchant: merchantInput.optional() });
export type TokenRebillInput = z.input<typeof tokenRebillInput>;

/**
 * The token payment's answer: the transaction nested under `payment`, the masked card under `card_info`, and no
 * status — rescode 0000 is the sale. A status, if one ever comes (the seed's form answers with one), is kept.
 */
export const tokenRebillResponse = resultEnvelope.extend({
  mid: responseOptional,
  payment: z.looseObject({
    order_id: responseString,
    currency: responseString,
    amount: responseString,
    transaction_id: responseString,
    status: windowStatus.optional(),
    ...optionalStrings([
      "auth_code",
      "transaction_date",
      "access_country",
      "payment_method",
      "payment_method_name",
      "pay_to",
      "lang",
      "base_currency",
      "base_amount",
      "base_rate",
      "dcc_rate",
    ]),
  }),
  /** The amount the card was billed in its own currency (dynamic currency conversion), as the non-ui payment's. */
  foreign: foreign.optional(),
  card_info: cardInfo.optional(),
  other_param: responseOtherParam.optional(),
});
export type TokenRebillResponse = z.output<typeof tokenRebillResponse>;

/** Token deletion: POST /v1/payments/tokenbilling/{token_id}/delete with an empty JSON body, as the gateway's sample. */
export const tokenDeleteRequest = z.strictObject({});
export const tokenDeleteResponse = resultEnvelope;
export type TokenDeleteResponse = z.output<typeof tokenDeleteResponse>;

/**
 * Token inquiry: GET /v1/payments/tokenbilling/{token_id}. The fields of the answer are not published beyond the
 * card's identification values: the masked card is read where it appears, everything else is kept as sent.
 */
export const tokenInquiryResponse = withAliases(
  CARD_ALIASES,
  z.looseObject({
    ...resultEnvelope.shape,
    token_id: responseOptional,
    card_holder: responseOptional,
    card_number1: responseOptional,
    card_number4: responseOptional,
    card_info: cardInfo.optional(),
  }),
);
export type TokenInquiryResponse = z.output<typeof tokenInquiryResponse>;
