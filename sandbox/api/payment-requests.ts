import * as z from "zod";
import { passesCheckDigit } from "../shared/gateway-crypto";
import {
  calendarDay,
  currencyCode,
  givenUrl,
  merchantId,
  nonNegativeAmount,
  optionalText,
  orderId,
  positiveAmount,
  recurringAmount,
  requiredText,
  transactionId,
} from "./request-fields";

// The payment API's request bodies (seed 000 and README, The real gateway) as the sandbox reads them. Objects keep
// unknown keys (the gateway ignores them); optional objects may be empty and optional fields blank, as the real
// gateway takes them: `settings: {}`, `tax: {}`, `surcharge: [{}]`, blank `fast_payment` fields, a numeric quantity,
// a link without scheme. What the gateway enforces stays enforced: required fields, amounts, order ids, the rules
// between fields that decide what a payment does.

const blankable = z.string().optional();
/** A count as the gateway takes it: a string or a JSON number, or blank in a sample's placeholder line. */
const looseCount = z
  .union([z.string().regex(/^\d*$/, "must be a whole number"), z.number().int().min(0)])
  .optional();

const merchant = z.looseObject({ mid: merchantId, shop: blankable, partner_code: blankable });
const buyer = z.looseObject({
  name: requiredText(100),
  email: requiredText(254).refine((value) => value.includes("@"), "must be an e-mail address"),
  phone_number: blankable,
});
const otherParam = z.looseObject({
  param1: optionalText(255),
  param2: optionalText(255),
  param3: optionalText(255),
});

/** Order lines: every field may be blank (the token page's own sample sends a blank line). */
const orderLines = z
  .array(z.looseObject({ name: blankable, quantity: looseCount, unit_price: blankable, link: blankable }))
  .max(3, "must have at most 3 items");

const tokenbilling = z.looseObject({
  token_creation: z.enum(["Y", "N"]).optional(),
  unique_token_id: z.enum(["Y", "N"]).optional(),
  token_id: z.string().min(1, "is required").optional(),
});

const recurring = z.looseObject({
  recurring_amount: recurringAmount,
  recurring_start_date: calendarDay,
  recurring_interval: z.string().regex(/^(?:[1-9]|10)$/, "must be a number of months from 1 to 10"),
  recurring_noti_url: givenUrl.optional(),
  remind_email_interval: blankable,
});

const settings = z.looseObject({
  display_type: blankable,
  site_foreign_currency: blankable,
  issuer_country: blankable,
  virtualaccount_expiry_date: blankable,
});

/** What the window and the non-ui payment share: who pays, what for, and what the payment should create. */
const orderObjects = {
  merchant,
  buyer,
  other_param: otherParam.optional(),
  product: orderLines.optional(),
  surcharge: orderLines.optional(),
  tax: z.looseObject({}).optional(),
  ship_to: z.looseObject({}).optional(),
  bill_to: z.looseObject({}).optional(),
  fast_payment: z.looseObject({}).optional(),
  tokenbilling: tokenbilling.optional(),
  recurring: recurring.optional(),
  settings: settings.optional(),
};

const TRANSACTION_TYPES = ["PAYMENT", "PAYER_AUTH", "AUTHORIZE", "REBILL"] as const;

const order = { order_id: orderId, currency: currencyCode, amount: positiveAmount, lang: blankable };

// ───────────────────────────── ready ─────────────────────────────

export const readyRequest = z
  .looseObject({
    payment: z.looseObject({
      ...order,
      transaction_type: z.enum(TRANSACTION_TYPES),
      payment_method: blankable,
    }),
    url: z.looseObject({ return_url: givenUrl, status_url: givenUrl }),
    ...orderObjects,
  })
  .superRefine((ready, ctx) => {
    const { transaction_type, payment_method } = ready.payment;
    const foreignCurrency = ready.settings?.site_foreign_currency;
    if (foreignCurrency && payment_method && payment_method !== "P000") {
      ctx.addIssue({
        code: "custom",
        path: ["payment", "payment_method"],
        message: "must be P000 with settings.site_foreign_currency",
      });
    }
    const token = ready.tokenbilling;
    if (token?.token_creation === "Y" && transaction_type !== "PAYMENT") {
      ctx.addIssue({
        code: "custom",
        path: ["tokenbilling", "token_creation"],
        message: "is only for transaction_type PAYMENT",
      });
    }
    if ((token?.token_id !== undefined) !== (transaction_type === "REBILL")) {
      ctx.addIssue({
        code: "custom",
        path: ["tokenbilling", "token_id"],
        message: "is required for transaction_type REBILL and only for it",
      });
    }
  });
export type ReadyRequest = z.output<typeof readyRequest>;

// ───────────────────────────── non-ui payment ─────────────────────────────

const CARD_FIELDS = ["card_number", "expiry_date", "cvc"] as const;
const cipherText = z.string().min(1, "is required");

export const paymentRequest = z
  .looseObject({
    payment: z.looseObject({
      ...order,
      payment_method: blankable,
      payer_auth_id: blankable,
      card_number: cipherText.optional(),
      expiry_date: cipherText.optional(),
      cvc: cipherText.optional(),
    }),
    url: z.looseObject({ status_url: givenUrl.optional() }).optional(),
    wallet_a: z.looseObject({ payment_data: cipherText }).optional(),
    wallet_b: z.looseObject({ payment_data: cipherText }).optional(),
    ...orderObjects,
  })
  .superRefine((body, ctx) => {
    const sent = CARD_FIELDS.filter((field) => body.payment[field] !== undefined);
    if (sent.length > 0) {
      for (const field of CARD_FIELDS.filter((each) => !sent.includes(each))) {
        ctx.addIssue({
          code: "custom",
          path: ["payment", field],
          message: "is required with the other card fields",
        });
      }
    }
    const sources = [
      sent.length > 0 && "payment.card_number",
      body.wallet_a && "wallet_a",
      body.wallet_b && "wallet_b",
      body.tokenbilling?.token_id !== undefined && "tokenbilling.token_id",
    ].filter((source): source is string => typeof source === "string");
    for (const extra of sources.slice(1)) {
      ctx.addIssue({
        code: "custom",
        path: extra.split("."),
        message: `must not be sent with ${sources[0]}`,
      });
    }
  });
export type PaymentRequest = z.output<typeof paymentRequest>;

/** A card as the customer types it (the window) or as it decrypts (the non-ui payment); HE00–HE02 on failure. */
export const plaintextCard = z.looseObject({
  card_number: z
    .string()
    .regex(/^\d{12,19}$/, "must be twelve to nineteen digits")
    .refine(passesCheckDigit, "fails the check digit"),
  expiry_date: z.string().regex(/^\d{4}(?:0[1-9]|1[0-2])$/, "must be YYYYMM"),
  cvc: z.string().regex(/^\d{3,4}$/, "must be three or four digits"),
});

// ───────────────────────────── confirm, verify, retrieve ─────────────────────────────

export const confirmRequest = z.looseObject({
  transaction_type: z.enum(["PAYMENT_PA", "AUTHORIZE_PA"]),
  mid: merchantId,
  payment: z.looseObject({ ...order, payer_auth_id: requiredText(24) }),
  other_param: otherParam.optional(),
});

export const verifyRequest = z.looseObject({ data: z.string().min(1, "is required") });

export const retrieveRequest = z
  .looseObject({
    mid: merchantId,
    key_field: z.enum(["order_id", "transaction_id", "refund_id"]).default("transaction_id"),
    payment: z.looseObject({
      ...order,
      transaction_id: blankable,
      refund_id: blankable,
    }),
  })
  .superRefine(({ key_field, payment }, ctx) => {
    if (key_field !== "order_id" && !payment.transaction_id) {
      ctx.addIssue({
        code: "custom",
        path: ["payment", "transaction_id"],
        message: `is required with key_field ${key_field}`,
      });
    }
    if (key_field === "refund_id" && !payment.refund_id) {
      ctx.addIssue({
        code: "custom",
        path: ["payment", "refund_id"],
        message: "is required with key_field refund_id",
      });
    }
  });

// ───────────────────────────── cancel, capture, settle, receipt ─────────────────────────────

const TAX_AMOUNTS = ["amount_tax_free", "amount_taxable", "amount_vat", "amount_service_fee"] as const;
const tax = z.looseObject({
  amount_tax_free: nonNegativeAmount.optional(),
  amount_taxable: nonNegativeAmount.optional(),
  amount_vat: nonNegativeAmount.optional(),
  amount_service_fee: nonNegativeAmount.optional(),
});

const cancelRequestObject = z.looseObject({
  mid: merchantId,
  refund: z.looseObject({
    refund_type: z.enum(["F", "P"]),
    refund_amount: positiveAmount.optional(),
    refund_id: requiredText(30),
    reason: requiredText(255),
  }),
  payment: z.looseObject({ ...order, balance: nonNegativeAmount }),
  other_param: otherParam.optional(),
  refund_account: z
    .looseObject({
      user_name: requiredText(50),
      bank_code: requiredText(10),
      account_number: requiredText(30),
    })
    .optional(),
  tax: tax.optional(),
});
export type CancelRequest = z.output<typeof cancelRequestObject>;

/**
 * A cancel: refund_amount required for P and never above the balance, the balance never above the amount; a
 * virtual-account payment's cancel also needs the account to pay back to and the four tax amounts.
 */
export function cancelRequestOf(virtualAccount: boolean) {
  return cancelRequestObject.superRefine(({ refund, payment, refund_account, tax }, ctx) => {
    if (Number(payment.balance) > Number(payment.amount)) {
      ctx.addIssue({
        code: "custom",
        path: ["payment", "balance"],
        message: "must not exceed payment.amount",
      });
    }
    if (refund.refund_amount === undefined && refund.refund_type === "P") {
      ctx.addIssue({
        code: "custom",
        path: ["refund", "refund_amount"],
        message: "is required for a partial refund",
      });
    }
    if (refund.refund_amount !== undefined && Number(refund.refund_amount) > Number(payment.balance)) {
      ctx.addIssue({
        code: "custom",
        path: ["refund", "refund_amount"],
        message: "must not exceed payment.balance",
      });
    }
    if (!virtualAccount) return;
    if (refund_account === undefined) {
      ctx.addIssue({
        code: "custom",
        path: ["refund_account"],
        message: "is required for a virtual-account payment",
      });
    }
    for (const key of TAX_AMOUNTS) {
      if (tax?.[key] === undefined) {
        ctx.addIssue({
          code: "custom",
          path: ["tax", key],
          message: "is required for a virtual-account payment",
        });
      }
    }
  });
}

export const captureRequest = z.looseObject({
  mid: merchantId,
  payment: z.looseObject(order),
  other_param: otherParam.optional(),
});

export const settleRequest = z.looseObject({ mid: merchantId, payment: z.looseObject(order) });

export const receiptUrlRequest = z.looseObject({
  mid: merchantId,
  email: requiredText(254).refine((value) => value.includes("@"), "must be an e-mail address"),
});

// ───────────────────────────── recurring and path parameters ─────────────────────────────

/** The delete body is not shown anywhere: an empty body is taken, a mid when sent must be the merchant's. */
export const recurringDeleteRequest = z.looseObject({ mid: merchantId.optional() });
export const recurringAdjustRequest = z.looseObject({ adjust_amount: recurringAmount });

export const transactionIdParam = z.object({ transaction_id: transactionId });
export const recurringIdParam = z.object({ recurring_id: requiredText(20) });
