import * as z from "zod";
import {
  CARD_ALIASES,
  cardInfo,
  email,
  foreign,
  merchant,
  merchantInput,
  optionalStrings,
  orderObjects,
  otherParam,
  paymentMethodCode,
  required,
  responseOptional,
  responseOtherParam,
  responseString,
  settings,
  windowStatus,
} from "./payment-api";
import {
  amount,
  countryCode,
  currency,
  lang,
  mid,
  orderId,
  resultEnvelope,
  url,
  withAliases,
  yesNo,
  yyyymmdd,
} from "./primitives";

// The payment window (seeds/000): ready opens it, confirm completes a PAYER_AUTH window, verify checks its result,
// and the result itself comes to status_url / return_url as a query string.

// ───────────────────────────── ready ─────────────────────────────

/** All-or-nothing: every field is required when the object is sent; blanks stand for "no identity check". */
const fastPayment = z.strictObject({
  user_id: z.string(),
  user_ci: z.string(),
  phone_number: z.string(),
  birthday: z.union([z.literal(""), yyyymmdd], "must be YYYYMMDD or blank"),
  gender: z.enum(["", "M", "F"]),
  foreigner: z.enum(["", "T", "F"]),
});

const walletC = z.strictObject({ payer_id_required: yesNo.optional() });

const dashedDateTime = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2} (?:[01]\d|2[0-3]):[0-5]\d:[0-5]\d$/, "must be YYYY-MM-DD HH:MM:SS")
  .refine(
    (value) => yyyymmdd.safeParse(value.slice(0, 10).replaceAll("-", "")).success,
    "must be a calendar date",
  );

/** All-or-nothing, like fast_payment, but no blanks. */
const ispp = z.strictObject({
  sender_account_id: required,
  sender_first_name: required,
  sender_last_name: required,
  sender_email: email,
  sender_phone: required,
  sender_country_code: countryCode,
  sender_create_date: dashedDateTime,
});

const readyRequestObject = z.strictObject({
  payment: z.strictObject({
    transaction_type: z.enum(["PAYMENT", "PAYER_AUTH", "AUTHORIZE", "REBILL"]),
    order_id: orderId,
    currency,
    amount,
    lang,
    payment_method: paymentMethodCode.optional(),
    multi_payment_method: z
      .string()
      .regex(/^[A-Za-z0-9]+(?:-[A-Za-z0-9]+)*$/, "must be payment-method codes joined with a hyphen")
      .optional(),
  }),
  merchant,
  url: z.strictObject({ return_url: url, status_url: url }),
  ...orderObjects,
  settings: settings.optional(),
  fast_payment: fastPayment.optional(),
  wallet_c: walletC.optional(),
  ispp: ispp.optional(),
});
type ReadyShape = z.output<typeof readyRequestObject>;

function checkReadyRules(
  value: Pick<ReadyShape, "payment" | "settings" | "tokenbilling">,
  ctx: z.RefinementCtx,
): void {
  const { transaction_type, payment_method } = value.payment;
  if (
    value.settings?.site_foreign_currency !== undefined &&
    payment_method !== undefined &&
    payment_method !== "P000"
  ) {
    ctx.addIssue({
      code: "custom",
      path: ["payment", "payment_method"],
      message: "must be P000 with settings.site_foreign_currency",
    });
  }
  const token = value.tokenbilling;
  for (const key of ["token_creation", "unique_token_id"] as const) {
    if (token?.[key] !== undefined && transaction_type !== "PAYMENT") {
      ctx.addIssue({
        code: "custom",
        path: ["tokenbilling", key],
        message: "is only for transaction_type PAYMENT",
      });
    }
  }
  if ((token?.token_id !== undefined) !== (transaction_type === "REBILL")) {
    ctx.addIssue({
      code: "custom",
      path: ["tokenbilling", "token_id"],
      message: "is required for transaction_type REBILL and only for it",
    });
  }
}

export const readyRequest = readyRequestObject.superRefine(checkReadyRules);
export type ReadyRequest = z.output<typeof readyRequest>;
const readyInput = readyRequestObject.extend({ merchant: merchantInput.optional() });
export type ReadyInput = z.input<typeof readyInput>;

export const readyResponse = resultEnvelope.extend({ fgkey: z.string().min(1) });
export type ReadyResponse = z.output<typeof readyResponse>;

// ───────────────────────────── confirm ─────────────────────────────

export const confirmRequest = z.strictObject({
  transaction_type: z.enum(["PAYMENT_PA", "AUTHORIZE_PA"]),
  mid,
  payment: z.strictObject({ order_id: orderId, currency, amount, payer_auth_id: required, lang }),
  other_param: otherParam.optional(),
});
export type ConfirmRequest = z.output<typeof confirmRequest>;
const confirmInput = confirmRequest.omit({ mid: true });
export type ConfirmInput = z.input<typeof confirmInput>;

const cashReceipt = z.object({
  use_flag: responseOptional,
  cash_receipt_type: responseOptional,
  customer_information_type: responseOptional,
  customer_information: responseOptional,
});
const responseAddress = z.object({
  city: responseOptional,
  country: responseOptional,
  first_name: responseOptional,
  last_name: responseOptional,
  phone_number: responseOptional,
  postal_code: responseOptional,
  state: responseOptional,
  street1: responseOptional,
});
const dm = z.object({
  dm_decision: responseOptional,
  dm_reject: responseOptional,
  dm_review: responseOptional,
});

export const confirmResponse = resultEnvelope.extend({
  mid: responseString,
  payment: z.object({
    order_id: responseString,
    currency: responseString,
    amount: responseString,
    email: responseString,
    transaction_id: responseString,
    transaction_date: responseString,
    // Only virtual account / convenience store carry a status (Registered or Sale).
    status: windowStatus.optional(),
    ...optionalStrings([
      "auth_code",
      "access_country",
      "payment_method",
      "pay_to",
      "payment_url",
      "base_currency",
      "base_amount",
      "base_rate",
      "dcc_rate",
      "terminal_id",
      "card_number",
      "expiry_date",
      "store_number",
    ]),
  }),
  foreign: foreign.optional(),
  card_info: cardInfo.optional(),
  cash_receipt: cashReceipt.optional(),
  ship_to: responseAddress.optional(),
  dm: dm.optional(),
  other_param: responseOtherParam.optional(),
});
export type ConfirmResponse = z.output<typeof confirmResponse>;

// ───────────────────────────── verify and the status_url query ─────────────────────────────

export const verifyRequest = z.strictObject({ data: required });
export type VerifyRequest = z.output<typeof verifyRequest>;
export const verifyResponse = resultEnvelope;
export type VerifyResponse = z.output<typeof verifyResponse>;

/** The window result's optional fields; the non-ui payment answers with them too (payments.ts). */
export const WINDOW_RESULT_OPTIONAL = [
  "param1",
  "param2",
  "param3",
  "transaction_id",
  "auth_code",
  "payer_auth_id",
  "transaction_date",
  "access_country",
  "payment_method",
  "payment_type",
  "pay_to",
  "card_holder",
  "card_number1",
  "card_number4",
  "installment_months",
  "card_issuer_country",
  "ship_to_city",
  "ship_to_country",
  "ship_to_first_name",
  "ship_to_last_name",
  "ship_to_phone_number",
  "ship_to_postal_code",
  "ship_to_state",
  "ship_to_street1",
  "useFlag",
  "cash_receipt_type",
  "cash_receipt_deduction_detail",
  "cash_receipt_user_info",
  "virtual_account_number",
  "virtual_account_bank_name",
  "virtual_account_depositor",
  "virtual_account_due_date",
  "payment_url",
  "dm_decision",
  "dm_reject",
  "dm_review",
  "base_currency",
  "base_amount",
  "base_rate",
  "foreign_currency",
  "foreign_amount",
  "foreign_rate",
  "dcc_rate",
  "terminal_id",
  "card_number",
  "expiry_date",
  "store_number",
  "cavv",
  "xid",
  "eci",
  "token_id",
  "token_creation",
  "recurring_payment",
  "recurring_id",
  "recurring_next_date",
  "wallet_c_payer_id",
] as const;
/**
 * Older names the gateway still sends (README, The real gateway: the test server in 2023), and the samples'
 * misspellings: read as the documented names.
 */
export const WINDOW_RESULT_ALIASES = {
  ver: "version",
  ...CARD_ALIASES,
  txntype: "transaction_type",
  ref: "order_id",
  cur: "currency",
  amt: "amount",
  transid: "transaction_id",
  authcode: "auth_code",
  resdt: "transaction_date",
  payerauthid: "payer_auth_id",
  paymethod: "payment_method",
  accesscountry: "access_country",
  cardholder: "card_holder",
  payto: "pay_to",
  basecur: "base_currency",
  baseamt: "base_amount",
  baserate: "base_rate",
  foreigncur: "foreign_currency",
  foreignamt: "foreign_amount",
  foreignrate: "foreign_rate",
  dccrate: "dcc_rate",
} as const;

/**
 * The window result passed to return_url / status_url (the verify fields). Extra keys are kept. The real gateway
 * sends no `status` (the seed lists it as required): rescode 0000 is the success, and verify is the authority.
 */
export const statusQuery = withAliases(
  WINDOW_RESULT_ALIASES,
  z.looseObject({
    ...optionalStrings([...WINDOW_RESULT_OPTIONAL, "version", "email", "errcode"]),
    mid: responseString,
    transaction_type: responseString,
    fgkey: responseString,
    order_id: responseString,
    currency: responseString,
    amount: responseString,
    rescode: responseString,
    resmsg: responseString.default(""),
    status: windowStatus.optional(),
  }),
);
export type StatusQuery = z.output<typeof statusQuery>;

/**
 * Reads a status_url / return_url query string: a leading "?", a trailing "&" and empty parameters are fine; a
 * repeated key keeps its last value. Reading is not trusting: pass the untouched string to verify first.
 */
export function parseStatusQuery(query: string) {
  return statusQuery.safeParse(Object.fromEntries(new URLSearchParams(query)), { reportInput: false });
}
