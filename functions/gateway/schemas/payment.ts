import passesLuhn from "fast-luhn";
import * as z from "zod";
import { gatewayDate } from "../calendar";
import { GatewayRequestError } from "../errors";
import {
  amount,
  countryCode,
  currency,
  lang,
  mid,
  optionalText,
  orderId,
  recurringAmount,
  recurringId,
  resultEnvelope,
  signedAmount,
  text,
  transactionId,
  url,
  withAliases,
  yesNo,
  yyyymmdd,
  yyyymmddhh,
} from "./primitives";

// Payment API (seeds/000): wire schemas of every request (with mid, as sent in the JSON body), the client's input
// schemas (the same objects without mid; plaintext card on the non-ui payment) and lenient response schemas.
// Requests are strict objects: an unknown key is a mistake caught before sending.

// ───────────────────────────── request building blocks ─────────────────────────────

const required = z.string().min(1, "is required");
const optionalString = z.string().optional();
const nonNegativeAmount = signedAmount.refine((value) => Number(value) >= 0, "must not be negative");
const positiveInteger = z.string().regex(/^[1-9]\d*$/, "must be a whole number greater than 0");
const email = z.email("must be an e-mail address");
const paymentMethodCode = z.string().regex(/^[A-Za-z0-9]+$/, "must be a payment-method code");
/** AES-256-CBC ciphertext, Base64 (card fields and wallet payloads of the non-ui payment). */
const ciphertext = z.base64("must be Base64 ciphertext").min(1, "is required");

const otherParam = z.strictObject({ param1: optionalText(255), param2: optionalText(255) });

/** Domestic tax breakdown; the four amounts become required for some methods (see cancelRequestFor). */
const tax = z.strictObject({
  receipt_status: yesNo.optional(),
  amount_tax_free: nonNegativeAmount.optional(),
  amount_taxable: nonNegativeAmount.optional(),
  amount_vat: nonNegativeAmount.optional(),
  amount_service_fee: nonNegativeAmount.optional(),
});
const TAX_AMOUNTS = ["amount_tax_free", "amount_taxable", "amount_vat", "amount_service_fee"] as const;

/** ship_to / bill_to. Every field is optional in general (some methods need all of them). */
const address = z
  .strictObject({
    city: optionalString,
    country: countryCode.optional(),
    first_name: optionalString,
    last_name: optionalString,
    phone_number: optionalString,
    postal_code: optionalString,
    state: optionalString,
    street1: optionalString,
  })
  .refine((value) => value.state === undefined || value.country === "US" || value.country === "CA", {
    path: ["state"],
    message: "is only for US or CA addresses",
  });

const productItem = z.strictObject({
  name: required,
  quantity: positiveInteger,
  unit_price: nonNegativeAmount,
  link: url,
});
const surchargeItem = z.strictObject({ name: required, quantity: positiveInteger, unit_price: signedAmount });
const atMostThree = <T extends z.ZodType>(item: T) => z.array(item).max(3, "must have at most 3 items");

const merchant = z.strictObject({ mid, shop: optionalString, partner_code: optionalString });
/** merchant as callers give it: the client injects mid from its configuration. */
const merchantInput = merchant.omit({ mid: true });

const buyer = z.strictObject({ name: required, phone_number: optionalString, email });

const settings = z.strictObject({
  display_type: z.enum(["P", "R"]).optional(),
  autoclose: yesNo.optional(),
  site_foreign_currency: currency.optional(),
  call_from_app: yesNo.optional(),
  call_from_scheme: optionalString,
  issuer_country: countryCode.optional(),
  ostype: z.enum(["P", "M"]).optional(),
  virtualaccount_expiry_date: yyyymmddhh.optional(),
});

const tokenbilling = z.strictObject({
  token_creation: yesNo.optional(),
  unique_token_id: yesNo.optional(),
  token_id: required.optional(),
});
type Tokenbilling = z.output<typeof tokenbilling>;

const recurring = z.strictObject({
  recurring_amount: recurringAmount,
  recurring_start_date: yyyymmdd,
  recurring_interval: z.string().regex(/^(?:[1-9]|10)$/, "must be a number of months from 1 to 10"),
  recurring_noti_url: url.optional(),
  remind_email_interval: z
    .string()
    .regex(/^\d{1,2}$/, "must be at most 2 digits")
    .optional(),
});

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

/** The order description shared by the window (ready) and the non-ui payment. */
const orderObjects = {
  buyer,
  tax: tax.optional(),
  other_param: otherParam.optional(),
  product: atMostThree(productItem).optional(),
  surcharge: atMostThree(surchargeItem).optional(),
  ship_to: address.optional(),
  bill_to: address.optional(),
  tokenbilling: tokenbilling.optional(),
  recurring: recurring.optional(),
};

/**
 * "recurring_start_date later than the current date": needs a clock, so it is a separate check the client runs with
 * context.now(). The current date is the gateway's, in Korea (UTC+9).
 */
export function checkRecurringStartDate(
  request: { readonly recurring?: { readonly recurring_start_date: string } | undefined },
  now: Date,
): void {
  const start = request.recurring?.recurring_start_date;
  if (start !== undefined && start <= gatewayDate(now)) {
    throw new GatewayRequestError("recurring.recurring_start_date", "must be later than today");
  }
}

/** Path parameters: EC1002 semantics (transaction_id exactly 24 characters) and recurring_id ≤ 20. */
export const transactionIdParam = z.object({ transaction_id: transactionId });
export const recurringIdParam = z.object({ recurring_id: recurringId });

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

// ───────────────────────────── ready ─────────────────────────────

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

// ───────────────────────────── response building blocks (lenient) ─────────────────────────────

const responseString = z.string();
const responseOptional = z.string().optional();

/** Status values are upper-cased: the seed writes "Sale" / "Registered" in places and SALE / REGISTERED in others. */
const upperCased = <T extends z.ZodType>(schema: T) =>
  z.preprocess((input) => (typeof input === "string" ? input.toUpperCase() : input), schema);
export const windowStatus = upperCased(z.enum(["SALE", "AUTH", "REGISTERED", "NONE"]));

const responseOtherParam = z.object({
  param1: responseOptional,
  param2: responseOptional,
  param3: responseOptional,
});
const foreign = withAliases(
  { foregin_currency: "foreign_currency", foregin_amount: "foreign_amount", foregin_rate: "foreign_rate" },
  z.object({
    foreign_currency: responseOptional,
    foreign_amount: responseOptional,
    foreign_rate: responseOptional,
  }),
);
const CARD_ALIASES = { cardno1: "card_number1", cardno4: "card_number4" } as const;
const cardInfo = withAliases(
  CARD_ALIASES,
  z.object({ card_holder: responseOptional, card_number1: responseOptional, card_number4: responseOptional }),
);
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

/** Object shape of optional string fields, from a list of names. */
function optionalStrings<const K extends string>(keys: readonly K[]) {
  // Object.fromEntries loses the key names; the mapped type restores them.
  return Object.fromEntries(keys.map((key) => [key, responseOptional])) as Record<K, typeof responseOptional>;
}

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

const WINDOW_RESULT_OPTIONAL = [
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
const WINDOW_RESULT_IDENTITY = ["version", "mid", "transaction_type", "fgkey", "email"] as const;
/**
 * Older names the gateway still sends (README, The real gateway: the test server in 2023), and the samples'
 * misspellings: read as the documented names.
 */
const WINDOW_RESULT_ALIASES = {
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

// ───────────────────────────── retrieve ─────────────────────────────

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

// ───────────────────────────── cancel ─────────────────────────────

const cancelRequestObject = z.strictObject({
  mid,
  refund: z.strictObject({
    refund_type: z.enum(["F", "P"]),
    refund_amount: amount.optional(),
    refund_id: required,
    reason: required,
  }),
  payment: z.strictObject({ order_id: orderId, currency, amount, balance: nonNegativeAmount, lang }),
  other_param: otherParam.optional(),
  refund_account: z
    .strictObject({ user_name: required, bank_code: required, account_number: required })
    .optional(),
  tax: tax.optional(),
});
type CancelShape = z.output<typeof cancelRequestObject>;

function checkCancelAmounts(
  { refund, payment }: Pick<CancelShape, "refund" | "payment">,
  ctx: z.RefinementCtx,
): void {
  if (Number(payment.balance) > Number(payment.amount)) {
    ctx.addIssue({ code: "custom", path: ["payment", "balance"], message: "must not exceed payment.amount" });
  }
  if (refund.refund_amount === undefined) {
    if (refund.refund_type === "P") {
      ctx.addIssue({
        code: "custom",
        path: ["refund", "refund_amount"],
        message: "is required for a partial refund",
      });
    }
    return;
  }
  if (Number(refund.refund_amount) > Number(payment.balance)) {
    ctx.addIssue({
      code: "custom",
      path: ["refund", "refund_amount"],
      message: "must not exceed payment.balance",
    });
  }
}

/** The cancel body as the sandbox accepts it: refund_account and tax optional (which payments need them is not visible). */
export const cancelRequest = cancelRequestObject.superRefine(checkCancelAmounts);
export type CancelRequest = z.output<typeof cancelRequest>;
const cancelInput = cancelRequestObject.omit({ mid: true });
export type CancelInput = z.input<typeof cancelInput>;

/**
 * Payments whose cancel needs more: virtual account (refund_account and tax) and domestic points wallet (tax). The
 * method codes are not published, so the caller says which kind the original payment was.
 */
export const cancelFundingKind = z.enum(["virtual_account", "points_wallet"]);
export type CancelFundingKind = z.output<typeof cancelFundingKind>;

/** cancelRequest plus the conditional requirements of one funding kind (tax: all four amounts). */
export function cancelRequestFor(kind: CancelFundingKind | undefined) {
  if (kind === undefined) return cancelRequest;
  return cancelRequest.superRefine((value, ctx) => {
    if (kind === "virtual_account" && value.refund_account === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["refund_account"],
        message: "is required for a virtual-account payment",
      });
    }
    if (value.tax === undefined) {
      ctx.addIssue({ code: "custom", path: ["tax"], message: `is required for a ${kind} payment` });
      return;
    }
    for (const key of TAX_AMOUNTS) {
      if (value.tax[key] === undefined) {
        ctx.addIssue({ code: "custom", path: ["tax", key], message: `is required for a ${kind} payment` });
      }
    }
  });
}

export const cancelResponse = resultEnvelope.extend({
  mid: responseString,
  refund: z.object({
    refund_amount: responseString,
    refund_id: responseString,
    refund_date: responseString,
    refund_transaction_id: responseString,
  }),
  payment: z.object({
    order_id: responseString,
    currency: responseString,
    amount: responseString,
    transaction_id: responseString,
    balance: responseString,
    ...optionalStrings([
      "auth_code",
      "base_currency",
      "base_amount",
      "base_rate",
      "dcc_rate",
      "payment_method",
    ]),
  }),
  foreign: foreign.optional(),
  other_param: responseOtherParam.optional(),
});
export type CancelResponse = z.output<typeof cancelResponse>;

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

// ───────────────────────────── non-ui payment ─────────────────────────────

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

/** The seed's REBILL: the non-ui payment with tokenbilling.token_id and no card or wallet. */
const rebillInput = paymentInputObject
  .omit({ card: true, wallet_a: true, wallet_b: true, tokenbilling: true })
  .extend({ token_id: required });
export type RebillInput = z.input<typeof rebillInput>;

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

// ───────────────────────────── token billing (README, The real gateway; not in the seeds) ─────────────────────────────

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
    ]),
  }),
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

// ───────────────────────────── recurring ─────────────────────────────

/** Delete body is not shown in the seed: mid identifies the merchant, like every other body. */
export const recurringDeleteRequest = z.strictObject({ mid });
export type RecurringDeleteRequest = z.output<typeof recurringDeleteRequest>;

export const recurringAdjustRequest = z.strictObject({ adjust_amount: recurringAmount });
export type RecurringAdjustRequest = z.output<typeof recurringAdjustRequest>;
export type RecurringAdjustInput = z.input<typeof recurringAdjustRequest>;

export const recurringResponse = resultEnvelope;
export type RecurringResponse = z.output<typeof recurringResponse>;
