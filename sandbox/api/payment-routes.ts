import { authorise, type FundingSource, VIRTUAL_ACCOUNT_METHOD } from "../acquirer/card-payments";
import { checkout, tokenConflict } from "../acquirer/checkout";
import { checkoutResult, matchesLedger } from "../acquirer/payment-results";
import { okReply, type Reply } from "../http/replies";
import { defineRoute, type RouteDefinition, type SandboxRequest } from "../http/routes";
import { carriesValidFgkey, decryptCardField, dottedParams, fgkeyOf } from "../shared/gateway-crypto";
import type { Ledger } from "../state/ledger";
import { readEncryptedCard } from "./card-input";
import { checkMid, duplicateCall, invalidField, parseBody, refuseField, stateRefusal } from "./payment-codes";
import {
  confirmRequest,
  type PaymentRequest,
  paymentRequest,
  readyRequest,
  recurringAdjustRequest,
  recurringDeleteRequest,
  recurringIdParam,
  verifyRequest,
} from "./payment-requests";
import {
  cancel,
  capture,
  cardInfo,
  checkSameOrder,
  type MerchantContext,
  receiptUrl,
  retrieve,
  settle,
} from "./transaction-operations";

// The payment API of seed 000 under /v1/payments, read with the sandbox's own request schemas (payment-requests.ts).

/** "recurring_start_date later than the current date": the gateway's date, in its own zone. */
function checkStartDate(body: Pick<PaymentRequest, "recurring">, ledger: Ledger, now: Date): void {
  const start = body.recurring?.recurring_start_date;
  if (start !== undefined && start <= ledger.date(now)) {
    refuseField("recurring.recurring_start_date", "must be later than today");
  }
}

/** Card (decrypted), stored token, wallet or virtual account: exactly what the body carries. */
function fundingSource(ctx: MerchantContext, body: PaymentRequest): FundingSource {
  const { merchant, ledger, clock } = ctx;
  const { card_number, expiry_date, cvc, payment_method } = body.payment;
  if (card_number !== undefined && expiry_date !== undefined && cvc !== undefined) {
    const presented = readEncryptedCard(merchant, { card_number, expiry_date, cvc }, ledger, clock.now());
    return { kind: "card", presented };
  }
  const tokenId = body.tokenbilling?.token_id;
  if (tokenId !== undefined) {
    const token = ledger.tokens.find(merchant.mid, tokenId);
    return token ? { kind: "token", token } : refuseField("tokenbilling.token_id", "unknown token");
  }
  if (payment_method === VIRTUAL_ACCOUNT_METHOD) return { kind: "virtual_account" };
  for (const wallet of ["wallet_a", "wallet_b"] as const) {
    const data = body[wallet]?.payment_data;
    if (data === undefined) continue;
    if (decryptCardField(data, merchant.aesKeyHex) === undefined)
      refuseField(`${wallet}.payment_data`, "does not decrypt with the merchant's key");
    return { kind: "wallet", paymentMethod: payment_method };
  }
  return refuseField("payment.card_number", "a card, token, wallet or virtual account is required");
}

/** What the body asks on top of the payment must fit its source; unique_token_id refuses a second token. */
function checkRequests(ctx: MerchantContext, body: PaymentRequest, source: FundingSource): void {
  if (body.tokenbilling?.token_creation === "Y" && source.kind !== "card")
    refuseField("tokenbilling.token_creation", "needs a card");
  if (body.recurring && source.kind !== "card" && source.kind !== "token")
    refuseField("recurring", "needs a card or a token");
  if (tokenConflict(ctx.ledger, ctx.merchant.mid, source, body.tokenbilling))
    refuseField("tokenbilling.unique_token_id", "a token already exists for this card");
}

/** payer_auth_id of a non-ui payment: an unused PAYER_AUTH result of this merchant for the same card. */
function payerAuthFor(ctx: MerchantContext, source: FundingSource, payerAuthId: string | undefined) {
  if (payerAuthId === undefined) return undefined;
  const record = ctx.ledger.payerAuths.find(ctx.merchant.mid, payerAuthId);
  const sameCard = source.kind === "card" && record?.card.fingerprint === source.presented.card.fingerprint;
  return record && sameCard && record.usedBy === undefined
    ? record
    : refuseField("payment.payer_auth_id", "unknown, used, or for another card");
}

function payment(request: SandboxRequest, ctx: MerchantContext): Reply {
  const { merchant, ledger, clock } = ctx;
  const body = parseBody(paymentRequest, request.body);
  checkMid("merchant.mid", body.merchant.mid, merchant.mid);
  checkStartDate(body, ledger, clock.now());
  const source = fundingSource(ctx, body);
  checkRequests(ctx, body, source);
  const payerAuth = payerAuthFor(ctx, source, body.payment.payer_auth_id);
  const { order_id, currency, amount } = body.payment;
  if (!ledger.payments.createOrder(merchant.mid, order_id, clock.now()).ok)
    duplicateCall("order_id was used before");
  const result = checkout(ctx, {
    mid: merchant.mid,
    orderId: order_id,
    transactionType: source.kind === "token" ? "REBILL" : "PAYMENT",
    capture: "SALE",
    currency,
    amount,
    source,
    payerAuthenticated: payerAuth !== undefined,
    payerAuthId: payerAuth?.payerAuthId,
    email: body.buyer.email,
    otherParam: body.other_param,
    statusUrl: body.url?.status_url,
    tokenbilling: body.tokenbilling,
    recurring: body.recurring,
  });
  if (payerAuth)
    ledger.payerAuths.markUsed(merchant.mid, payerAuth.payerAuthId, result.payment.transactionId);
  const details = { depositor: body.buyer.name, dueDate: body.settings?.virtualaccount_expiry_date };
  // Refusals answer HTTP 200 with their rescode, like the approvals.
  return { status: 200, body: checkoutResult(result, details) };
}

function ready(request: SandboxRequest, { merchant, ledger, clock }: MerchantContext): Reply {
  const body = parseBody(readyRequest, request.body);
  checkMid("merchant.mid", body.merchant.mid, merchant.mid);
  checkStartDate(body, ledger, clock.now());
  const tokenId = body.tokenbilling?.token_id;
  if (tokenId !== undefined && !ledger.tokens.find(merchant.mid, tokenId))
    refuseField("tokenbilling.token_id", "unknown token");
  const fgkey = fgkeyOf(merchant.apiKey, dottedParams(body));
  // The same request again while its window is open answers the same fgkey; any other use of the order_id is EEEE.
  if (ledger.windows.find(fgkey)?.state !== "open") {
    const orderId = body.payment.order_id;
    if (!ledger.payments.createOrder(merchant.mid, orderId, clock.now()).ok)
      duplicateCall("order_id was used before");
    ledger.windows.open({ fgkey, mid: merchant.mid, orderId, request: body }, clock.now());
  }
  return okReply({ fgkey });
}

function confirm(request: SandboxRequest, ctx: MerchantContext): Reply {
  const { merchant, ledger } = ctx;
  const body = parseBody(confirmRequest, request.body);
  checkMid("mid", body.mid, merchant.mid);
  const payerAuth =
    ledger.payerAuths.find(merchant.mid, body.payment.payer_auth_id) ??
    refuseField("payment.payer_auth_id", "unknown payer authentication");
  checkSameOrder(payerAuth, body.payment);
  if (payerAuth.usedBy !== undefined) duplicateCall("payer_auth_id was confirmed before");
  const { payment } = authorise(ctx, {
    mid: merchant.mid,
    orderId: payerAuth.orderId,
    transactionType: body.transaction_type,
    capture: body.transaction_type === "PAYMENT_PA" ? "SALE" : "AUTH",
    currency: payerAuth.currency,
    amount: payerAuth.amount,
    source: { kind: "card", presented: { card: payerAuth.card, expiry: payerAuth.cardExpiry } },
    payerAuthenticated: true,
    payerAuthId: payerAuth.payerAuthId,
    email: payerAuth.email,
    otherParam: payerAuth.otherParam,
  });
  ledger.payerAuths.markUsed(merchant.mid, payerAuth.payerAuthId, payment.transactionId);
  return {
    status: 200,
    body: {
      rescode: payment.rescode,
      resmsg: payment.resmsg,
      mid: merchant.mid,
      payment: {
        order_id: payment.orderId,
        currency: payment.currency,
        amount: payment.amount,
        email: payment.email ?? "",
        transaction_id: payment.transactionId,
        transaction_date: payment.transactionDate,
        auth_code: payment.authCode,
        payment_method: payment.paymentMethod,
        status: payment.status,
      },
      card_info: cardInfo(payment),
      other_param: body.other_param,
    },
  };
}

function recurringPath(request: SandboxRequest<{ recurring_id: string }>): string {
  return parseBody(recurringIdParam, request.params).recurring_id;
}

const merchantRoute = { method: "POST", auth: "basic" } as const;

export const paymentRoutes: readonly RouteDefinition[] = [
  defineRoute({ ...merchantRoute, name: "payments.ready", path: "/v1/payments/ready", handler: ready }),
  defineRoute({ ...merchantRoute, name: "payments.confirm", path: "/v1/payments/confirm", handler: confirm }),
  defineRoute({
    ...merchantRoute,
    name: "payments.verify",
    path: "/v1/payments/verify",
    handler: (request, { merchant, ledger }) => {
      const { data } = parseBody(verifyRequest, request.body);
      const verified =
        carriesValidFgkey(merchant.apiKey, data) &&
        matchesLedger(ledger, merchant.mid, new URLSearchParams(data));
      return verified ? okReply() : invalidField("data", "verification failed");
    },
  }),
  defineRoute({
    ...merchantRoute,
    name: "payments.retrieve",
    path: "/v1/payments/retrieve",
    handler: retrieve,
  }),
  defineRoute({
    ...merchantRoute,
    name: "payments.receipt-url",
    path: "/v1/payments/retrieve/receipt-url/:transaction_id",
    handler: receiptUrl,
  }),
  defineRoute({
    ...merchantRoute,
    name: "payments.cancel",
    path: "/v1/payments/:transaction_id/cancel",
    handler: cancel,
  }),
  defineRoute({
    ...merchantRoute,
    name: "payments.capture",
    path: "/v1/payments/:transaction_id/capture",
    handler: capture,
  }),
  defineRoute({
    ...merchantRoute,
    name: "payments.settle",
    path: "/v1/payments/:transaction_id/settle",
    handler: settle,
  }),
  defineRoute({ ...merchantRoute, name: "payments.payment", path: "/v1/payments/payment", handler: payment }),
  defineRoute({
    ...merchantRoute,
    name: "payments.recurring.delete",
    path: "/v1/payments/recurring/:recurring_id/delete",
    // Its body is shown nowhere; the gateway takes an empty one.
    body: "optional",
    handler: (request, { merchant, ledger, clock }) => {
      const recurringId = recurringPath(request);
      const { mid } = parseBody(recurringDeleteRequest, request.body);
      if (mid !== undefined) checkMid("mid", mid, merchant.mid);
      const recurring = ledger.recurring.find(merchant.mid, recurringId);
      if (!recurring) return refuseField("recurring_id", "unknown recurring payment");
      // Deleting a deleted plan again (a retry) succeeds: the plan is canceled either way.
      if (recurring.status === "active") ledger.recurring.cancel(merchant.mid, recurringId, clock.now());
      return okReply();
    },
  }),
  defineRoute({
    ...merchantRoute,
    name: "payments.recurring.adjust",
    path: "/v1/payments/recurring/:recurring_id/adjust",
    handler: (request, { merchant, ledger }) => {
      const recurringId = recurringPath(request);
      const body = parseBody(recurringAdjustRequest, request.body);
      const result = ledger.recurring.adjust(merchant.mid, recurringId, body.adjust_amount);
      if (result.ok) return okReply();
      return result.error === "recurring_canceled"
        ? stateRefusal("the recurring payment is canceled")
        : refuseField("recurring_id", "unknown recurring payment");
    },
  }),
];
