import passesLuhn from "fast-luhn";
import * as z from "zod";
import {
  merchant,
  merchantInput,
  optionalString,
  optionalStrings,
  orderObjects,
  otherParam,
  paymentMethodCode,
  required,
  responseOtherParam,
  responseString,
  settings,
  type Tokenbilling,
  windowStatus,
} from "./payment-api";
import { WINDOW_RESULT_ALIASES, WINDOW_RESULT_OPTIONAL } from "./payment-window";
import { amount, currency, lang, mid, orderId, resultEnvelope, url, withAliases, yesNo } from "./primitives";

// Payments (seeds/000): the non-ui (server-to-server) payment, then the capture and settlement of a transaction.

// ───────────────────────────── plaintext card (client input; sandbox after decrypting) ─────────────────────────────

// Messages carry no digits, so nothing in an error can be mistaken for (or leak) card data.
export const plaintextCard = z.strictObject({
  card_number: z
    .string()
    .regex(/^\d{12,19}$/, "must be twelve to nineteen digits")
    .refine(passesLuhn, "fails the check digit"),
  expiry_date: z.string().regex(/^\d{4}(?:0[1-9]|1[0-2])$/, "must be YYYYMM"),
  cvc: z.string().regex(/^\d{3,4}$/, "must be three or four digits"),
});
export type PlaintextCard = z.output<typeof plaintextCard>;

// ───────────────────────────── non-ui payment ─────────────────────────────

/** AES-256-CBC ciphertext, Base64 (card fields and wallet payloads of the non-ui payment). */
const ciphertext = z.base64("must be Base64 ciphertext").min(1, "is required");

const CARD_FIELDS = ["card_number", "expiry_date", "cvc"] as const;

const paymentObject = z.strictObject({
  order_id: orderId,
  currency,
  amount,
  lang,
  payment_method: paymentMethodCode.optional(),
  installment_months: z
    .string()
    .regex(/^\d{1,2}$/, "must be at most 2 digits")
    .optional(),
  payer_auth_id: required.optional(),
  card_number: ciphertext.optional(),
  expiry_date: ciphertext.optional(),
  cvc: ciphertext.optional(),
});
const walletData = z.strictObject({ payment_data: ciphertext, use_network: optionalString });

const paymentRequestObject = z.strictObject({
  payment: paymentObject,
  merchant,
  url: z.strictObject({ status_url: url }).optional(),
  ...orderObjects,
  settings: settings.pick({ issuer_country: true, virtualaccount_expiry_date: true }).optional(),
  wallet_a: walletData.optional(),
  wallet_b: walletData.optional(),
});

interface PaymentSources {
  readonly tokenbilling?: Tokenbilling | undefined;
  readonly wallet_a?: unknown;
  readonly wallet_b?: unknown;
}

/**
 * One source of funds at most: card, wallet_a, wallet_b or a stored token (REBILL: token_id, no card). None is
 * allowed: methods such as a virtual account need no card. A token is created from a card, not from a token.
 */
function checkPaymentSources(
  value: PaymentSources,
  card: { readonly present: boolean; readonly path: readonly string[] },
  ctx: z.RefinementCtx,
): void {
  const sources = [
    { present: card.present, path: card.path },
    { present: value.wallet_a !== undefined, path: ["wallet_a"] },
    { present: value.wallet_b !== undefined, path: ["wallet_b"] },
    { present: value.tokenbilling?.token_id !== undefined, path: ["tokenbilling", "token_id"] },
  ].filter((source) => source.present);
  const [first, ...others] = sources;
  for (const other of others) {
    ctx.addIssue({
      code: "custom",
      path: [...other.path],
      message: `must not be sent with ${first?.path.join(".")}`,
    });
  }
  if (value.tokenbilling?.token_id === undefined) return;
  for (const key of ["token_creation", "unique_token_id"] as const) {
    if (value.tokenbilling[key] !== undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["tokenbilling", key],
        message: "must not be sent with tokenbilling.token_id",
      });
    }
  }
}

export const paymentRequest = paymentRequestObject.superRefine((value, ctx) => {
  const sent = CARD_FIELDS.filter((key) => value.payment[key] !== undefined);
  if (sent.length > 0) {
    for (const key of CARD_FIELDS) {
      if (value.payment[key] === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["payment", key],
          message: "is required with the other card fields",
        });
      }
    }
  }
  checkPaymentSources(value, { present: sent.length > 0, path: ["payment", "card_number"] }, ctx);
});
export type PaymentRequest = z.output<typeof paymentRequest>;

/** Wallet data as callers give it: the decrypted wallet JSON (object or text); the client encrypts it. */
const walletInput = z.strictObject({
  payment_data: z.union([required, z.record(z.string(), z.unknown())], "must be a JSON object or text"),
  use_network: optionalString,
});

const paymentInputObject = paymentRequestObject.extend({
  payment: paymentObject.omit({ card_number: true, expiry_date: true, cvc: true }),
  merchant: merchantInput.optional(),
  card: plaintextCard.optional(),
  wallet_a: walletInput.optional(),
  wallet_b: walletInput.optional(),
});

/** The client's non-ui payment input: plaintext card and wallet data, which the client encrypts. */
export const paymentInput = paymentInputObject.superRefine((value, ctx) =>
  checkPaymentSources(value, { present: value.card !== undefined, path: ["card"] }, ctx),
);
export type PaymentInput = z.input<typeof paymentInput>;

const WINDOW_RESULT_IDENTITY = ["version", "mid", "transaction_type", "fgkey", "email"] as const;
/**
 * The non-ui payment answers with the verify fields (the rest is not shown: extra keys are kept). The fields that
 * identify the charge are required.
 */
export const paymentResponse = withAliases(
  WINDOW_RESULT_ALIASES,
  z.looseObject({
    ...optionalStrings([...WINDOW_RESULT_OPTIONAL, ...WINDOW_RESULT_IDENTITY]),
    ...resultEnvelope.shape,
    status: windowStatus,
    order_id: responseString,
    currency: responseString,
    amount: responseString,
    transaction_id: responseString,
  }),
);
export type PaymentResponse = z.output<typeof paymentResponse>;

// ───────────────────────────── capture and settle ─────────────────────────────

export const captureRequest = z.strictObject({
  mid,
  payment: z.strictObject({ order_id: orderId, currency, amount, lang }),
  other_param: otherParam.optional(),
});
export type CaptureRequest = z.output<typeof captureRequest>;
const captureInput = captureRequest.omit({ mid: true });
export type CaptureInput = z.input<typeof captureInput>;

export const captureResponse = resultEnvelope.extend({
  mid: responseString,
  payment: withAliases(
    { allowed_pvoid: "partially_cancelable" },
    z.object({
      order_id: responseString,
      transaction_id: responseString,
      currency: responseString,
      amount: responseString,
      lang: responseString,
      captured_date: responseString,
      partially_cancelable: yesNo.default("N"),
    }),
  ),
  other_param: responseOtherParam.optional(),
});
export type CaptureResponse = z.output<typeof captureResponse>;

export const settleRequest = z.strictObject({
  mid,
  payment: z.strictObject({ order_id: orderId, currency, amount }),
});
export type SettleRequest = z.output<typeof settleRequest>;
const settleInput = settleRequest.omit({ mid: true });
export type SettleInput = z.input<typeof settleInput>;

export const settleResponse = resultEnvelope.extend({
  mid: responseString,
  payment: z.object({
    order_id: responseString,
    transaction_id: responseString,
    currency: responseString,
    amount: responseString,
    settled_date: responseString,
  }),
});
export type SettleResponse = z.output<typeof settleResponse>;
