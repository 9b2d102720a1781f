import * as z from "zod";
import {
  foreign,
  nonNegativeAmount,
  optionalStrings,
  otherParam,
  required,
  responseOtherParam,
  responseString,
  tax,
} from "./payment-api";
import { amount, currency, lang, mid, orderId, resultEnvelope } from "./primitives";

// Cancel (seeds/000): a full or partial refund of a transaction, POST /v1/payments/{transaction_id}/cancel.

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

const TAX_AMOUNTS = ["amount_tax_free", "amount_taxable", "amount_vat", "amount_service_fee"] as const;

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
