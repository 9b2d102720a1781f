import * as z from "zod";
import { authorise } from "../acquirer/card-payments";
import { conversionFields } from "../acquirer/payment-results";
import { TOKEN_REFUSALS } from "../acquirer/result-codes";
import { okReply, type Reply, rescodeReply } from "../http/replies";
import { defineRoute, type RouteDefinition, type SandboxRequest } from "../http/routes";
import type { TokenRecord } from "../state/token-store";
import { checkMid, duplicateCall, parseBody, refuseField } from "./payment-codes";
import { cardInfo, type MerchantContext } from "./transaction-operations";

// Token billing as the real gateway has it (README, The real gateway; not in the seeds): a token payment on
// POST /v1/payments/tokenbilling/{token_id}/rebill, deletion on …/delete and inquiry on GET …/{token_id}. The bodies
// are read as leniently as the gateway reads them: unknown keys and empty optional fields pass.

const orderAmount = z
  .string()
  .regex(/^(?:0|[1-9]\d*)(?:\.\d+)?$/, "must be a decimal number without comma")
  .refine((value) => Number(value) > 0, "must be greater than 0");

const tokenRebillBody = z.looseObject({
  payment: z.looseObject({
    order_id: z.string().min(1, "is required").max(30, "must be at most 30 characters"),
    currency: z.string().regex(/^[A-Z]{3}$/, "must be a 3-letter currency code"),
    amount: orderAmount,
    lang: z.string().optional(),
  }),
  merchant: z.looseObject({ mid: z.string().min(1, "is required") }),
  buyer: z.looseObject({ email: z.string().optional() }).optional(),
  other_param: z.looseObject({ param1: z.string().optional(), param2: z.string().optional() }).optional(),
});

const midBody = z.looseObject({ mid: z.string().min(1, "is required") });

/** The merchant's token of the path: EC00 naming token_id when this merchant has no such token. */
function pathToken(request: SandboxRequest<{ token_id: string }>, ctx: MerchantContext): TokenRecord {
  return (
    ctx.ledger.tokens.find(ctx.merchant.mid, request.params.token_id) ??
    refuseField("token_id", "unknown token")
  );
}

/** A deleted token is refused like a declined payment: HTTP 200 with its rescode. */
function deletedTokenReply(): Reply {
  return rescodeReply(200, TOKEN_REFUSALS.deleted.rescode, TOKEN_REFUSALS.deleted.resmsg);
}

/** The token payment's answer: the transaction nested under `payment`, the masked card under `card_info`. */
function rebill(request: SandboxRequest<{ token_id: string }>, ctx: MerchantContext): Reply {
  const { merchant, ledger, clock } = ctx;
  const body = parseBody(tokenRebillBody, request.body);
  checkMid("merchant.mid", body.merchant.mid, merchant.mid);
  const token = pathToken(request, ctx);
  const { order_id, currency, amount, lang = "EN" } = body.payment;
  if (token.status === "deleted") {
    return deletedTokenReply();
  }
  if (!ledger.payments.createOrder(merchant.mid, order_id, clock.now()).ok)
    duplicateCall("order_id was used before");
  const { payment, refusal } = authorise(ctx, {
    mid: merchant.mid,
    orderId: order_id,
    transactionType: "REBILL",
    capture: "SALE",
    currency,
    amount,
    source: { kind: "token", token },
    payerAuthenticated: true,
    email: body.buyer?.email,
    otherParam: body.other_param,
  });
  const order = { order_id, currency, amount };
  if (refusal) {
    const errcode = refusal.errcode === undefined ? {} : { errcode: refusal.errcode };
    return {
      status: 200,
      body: { rescode: refusal.rescode, resmsg: refusal.resmsg, ...errcode, payment: order },
    };
  }
  const { foreign_currency, foreign_amount, foreign_rate, ...base } = conversionFields(payment);
  return okReply({
    payment: {
      ...order,
      ...base,
      transaction_id: payment.transactionId,
      auth_code: payment.authCode,
      transaction_date: payment.transactionDate,
      access_country: "KR",
      payment_method: payment.paymentMethod,
      payment_method_name: "Card",
      pay_to: "SANDBOX",
      lang,
    },
    card_info: { card_holder: "", ...cardInfo(payment) },
    ...(foreign_currency === undefined
      ? {}
      : { foreign: { foreign_currency, foreign_amount, foreign_rate } }),
  });
}

const tokenRoute = { method: "POST", auth: "basic" } as const;

export const tokenBillingRoutes: readonly RouteDefinition[] = [
  defineRoute({
    ...tokenRoute,
    name: "payments.tokenbilling.rebill",
    path: "/v1/payments/tokenbilling/:token_id/rebill",
    handler: rebill,
  }),
  defineRoute({
    ...tokenRoute,
    name: "payments.tokenbilling.delete",
    path: "/v1/payments/tokenbilling/:token_id/delete",
    body: "optional",
    handler: (request, ctx) => {
      const { mid } = parseBody(midBody, { mid: ctx.merchant.mid, ...request.body });
      checkMid("mid", mid, ctx.merchant.mid);
      const token = pathToken(request, ctx);
      // Deleting a deleted token again (a retry) succeeds: the token is gone either way.
      ctx.ledger.tokens.setStatus(ctx.merchant.mid, token.tokenId, "deleted", ctx.clock.now());
      return okReply();
    },
  }),
  defineRoute({
    method: "GET",
    auth: "basic",
    name: "payments.tokenbilling.inquiry",
    path: "/v1/payments/tokenbilling/:token_id",
    handler: (request, ctx) => {
      const token = pathToken(request, ctx);
      if (token.status === "deleted") {
        return deletedTokenReply();
      }
      return okReply({
        token_id: token.tokenId,
        card_info: { card_holder: "", card_number1: token.card.first4, card_number4: token.card.last4 },
      });
    },
  }),
];
