import * as z from "zod";
import { gatewayDate } from "../calendar";
import { GatewayRequestError } from "../errors";
import {
  countryCode,
  currency,
  mid,
  optionalText,
  recurringAmount,
  signedAmount,
  transactionId,
  url,
  withAliases,
  yesNo,
  yyyymmdd,
  yyyymmddhh,
} from "./primitives";

// Payment API (seeds/000): the objects its resources share. Each resource's file (payment-window.ts, payments.ts,
// retrieve.ts, cancel.ts, token-billing.ts, recurring.ts) holds the wire schema of each of its requests (with mid, as
// sent in the JSON body), the client's input schemas (the same objects without mid) and lenient response schemas.
// Requests are strict objects: an unknown key is a mistake caught before sending.

// ───────────────────────────── request building blocks ─────────────────────────────

export const required = z.string().min(1, "is required");
export const optionalString = z.string().optional();
export const nonNegativeAmount = signedAmount.refine((value) => Number(value) >= 0, "must not be negative");
const positiveInteger = z.string().regex(/^[1-9]\d*$/, "must be a whole number greater than 0");
export const email = z.email("must be an e-mail address");
export const paymentMethodCode = z.string().regex(/^[A-Za-z0-9]+$/, "must be a payment-method code");

export const otherParam = z.strictObject({ param1: optionalText(255), param2: optionalText(255) });

/** Domestic tax breakdown; the four amounts become required for some methods (see cancelRequestFor). */
export const tax = z.strictObject({
  receipt_status: yesNo.optional(),
  amount_tax_free: nonNegativeAmount.optional(),
  amount_taxable: nonNegativeAmount.optional(),
  amount_vat: nonNegativeAmount.optional(),
  amount_service_fee: nonNegativeAmount.optional(),
});

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

export const productItem = z.strictObject({
  name: required,
  quantity: positiveInteger,
  unit_price: nonNegativeAmount,
  link: url,
});
const surchargeItem = z.strictObject({ name: required, quantity: positiveInteger, unit_price: signedAmount });
export const atMostThree = <T extends z.ZodType>(item: T) =>
  z.array(item).max(3, "must have at most 3 items");

export const merchant = z.strictObject({ mid, shop: optionalString, partner_code: optionalString });
/** merchant as callers give it: the client injects mid from its configuration. */
export const merchantInput = merchant.omit({ mid: true });

export const buyer = z.strictObject({ name: required, phone_number: optionalString, email });

export const settings = z.strictObject({
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
export type Tokenbilling = z.output<typeof tokenbilling>;

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

/** The order description shared by the window (ready) and the non-ui payment. */
export const orderObjects = {
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

/** Path parameter: EC1002 semantics (transaction_id exactly 24 characters). */
export const transactionIdParam = z.object({ transaction_id: transactionId });

// ───────────────────────────── response building blocks (lenient) ─────────────────────────────

export const responseString = z.string();
export const responseOptional = z.string().optional();

/** Status values are upper-cased: the seed writes "Sale" / "Registered" in places and SALE / REGISTERED in others. */
const upperCased = <T extends z.ZodType>(schema: T) =>
  z.preprocess((input) => (typeof input === "string" ? input.toUpperCase() : input), schema);
export const windowStatus = upperCased(z.enum(["SALE", "AUTH", "REGISTERED", "NONE"]));

export const responseOtherParam = z.object({
  param1: responseOptional,
  param2: responseOptional,
  param3: responseOptional,
});
export const foreign = withAliases(
  { foregin_currency: "foreign_currency", foregin_amount: "foreign_amount", foregin_rate: "foreign_rate" },
  z.object({
    foreign_currency: responseOptional,
    foreign_amount: responseOptional,
    foreign_rate: responseOptional,
  }),
);
export const CARD_ALIASES = { cardno1: "card_number1", cardno4: "card_number4" } as const;
export const cardInfo = withAliases(
  CARD_ALIASES,
  z.object({ card_holder: responseOptional, card_number1: responseOptional, card_number4: responseOptional }),
);

/** Object shape of optional string fields, from a list of names. */
export function optionalStrings<const K extends string>(keys: readonly K[]) {
  // Object.fromEntries loses the key names; the mapped type restores them.
  return Object.fromEntries(keys.map((key) => [key, responseOptional])) as Record<K, typeof responseOptional>;
}
