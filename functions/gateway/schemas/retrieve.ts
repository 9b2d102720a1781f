import * as z from "zod";
import {
  cardInfo,
  email,
  optionalStrings,
  otherParam,
  required,
  responseOptional,
  responseOtherParam,
  responseString,
} from "./payment-api";
import {
  amount,
  currency,
  lang,
  mid,
  orderId,
  resultEnvelope,
  transactionId,
  withAliases,
} from "./primitives";

// Retrieve (seeds/000): a transaction looked up by order_id, transaction_id or refund_id, and its receipt page.

const retrieveRequestObject = z.strictObject({
  mid,
  key_field: z.enum(["order_id", "transaction_id", "refund_id"]).default("transaction_id"),
  payment: z.strictObject({
    order_id: orderId,
    currency,
    amount,
    lang,
    transaction_id: transactionId.optional(),
    refund_id: required.optional(),
  }),
  other_param: otherParam.optional(),
});

export const retrieveRequest = retrieveRequestObject.superRefine((value, ctx) => {
  if (value.key_field !== "order_id" && value.payment.transaction_id === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["payment", "transaction_id"],
      message: `is required with key_field ${value.key_field}`,
    });
  }
  if (value.key_field === "refund_id" && value.payment.refund_id === undefined) {
    ctx.addIssue({
      code: "custom",
      path: ["payment", "refund_id"],
      message: "is required with key_field refund_id",
    });
  }
});
export type RetrieveRequest = z.output<typeof retrieveRequest>;
const retrieveInput = retrieveRequestObject.omit({ mid: true });
export type RetrieveInput = z.input<typeof retrieveInput>;

const paymentRecordExtras = optionalStrings([
  "balance",
  "auth_code",
  "payment_method",
  "wallet_c_payer_id",
  "refund_id",
  "refund_transaction_id",
  "refund_amount",
]);
/**
 * The payment record of retrieve. The transaction fields are required except under status NONE ("no transaction
 * exists"), where the gateway has nothing to put in them; narrow on `status` to get them typed as present.
 */
export const paymentRecord = z.discriminatedUnion("status", [
  z.object({
    status: z.enum(["SALE", "AUTH", "REGISTERED", "REFUND", "PARTIAL_REFUND"]),
    order_id: responseString,
    currency: responseString,
    amount: responseString,
    transaction_id: responseString,
    transaction_date: responseString,
    ...paymentRecordExtras,
  }),
  z.object({
    status: z.literal("NONE"),
    ...optionalStrings(["order_id", "currency", "amount", "transaction_id", "transaction_date"]),
    ...paymentRecordExtras,
  }),
]);
export type PaymentRecord = z.output<typeof paymentRecord>;

export const retrieveResponse = resultEnvelope.extend({
  mid: responseString,
  payment: paymentRecord,
  card_info: cardInfo.optional(),
  other_param: responseOtherParam.optional(),
});
export type RetrieveResponse = z.output<typeof retrieveResponse>;

// ───────────────────────────── receipt url ─────────────────────────────

/**
 * Body and response are not shown in the seed. Assumed: the payment's e-mail proves the caller ("verification with
 * the payment e-mail is required"), and the answer carries the URL as receipt_url (or url).
 */
export const receiptUrlRequest = z.strictObject({ mid, email });
export type ReceiptUrlRequest = z.output<typeof receiptUrlRequest>;
const receiptUrlInput = receiptUrlRequest.omit({ mid: true });
export type ReceiptUrlInput = z.input<typeof receiptUrlInput>;

export const receiptUrlResponse = withAliases(
  { url: "receipt_url" },
  z.looseObject({ ...resultEnvelope.shape, receipt_url: responseOptional }),
);
export type ReceiptUrlResponse = z.output<typeof receiptUrlResponse>;
