import { type FundingSource, saleCompleted, VIRTUAL_ACCOUNT_METHOD } from "../acquirer/card-payments";
import { summarizeCard } from "../acquirer/cards";
import { checkout, tokenConflict } from "../acquirer/checkout";
import { withQuery } from "../acquirer/deliveries";
import {
  checkoutResult,
  inCallbackForm,
  payerAuthResult,
  paymentResult,
  signedQuery,
} from "../acquirer/payment-results";
import type { Refusal } from "../acquirer/result-codes";
import { okReply, parseFields, type Reply } from "../http/replies";
import { defineRoute, type RouteContext, type RouteDefinition, type SandboxRequest } from "../http/routes";
import type { MerchantRegistry } from "../state/merchant-config";
import type { TokenStatus } from "../state/token-store";
import { readPlaintextCard } from "./card-input";
import { duplicateCall, parseBody, refuseField, stateRefusal, unknownTransaction } from "./payment-codes";
import { plaintextCard, type ReadyRequest, readyRequest } from "./payment-requests";
import { merchantId } from "./request-fields";

// Sandbox-only routes that stand in for the customer and the bank: completing a payment window without a browser,
// depositing into a virtual account, changing a token's status, and the receipt page. No auth, no injected faults.

const sandboxRoute = { auth: "none", faults: false } as const;

/** The record some merchant owns (sandbox routes are not authenticated, so the id alone finds it). */
function ownedBy<T>(merchants: MerchantRegistry, find: (mid: string) => T | undefined): T | undefined {
  for (const { mid } of merchants.list()) {
    const found = find(mid);
    if (found) return found;
  }
  return undefined;
}

/** What pays in the window: the REBILL token, the virtual account, or the card the customer types. */
function windowSource(ctx: RouteContext, mid: string, ready: ReadyRequest, body: unknown): FundingSource {
  const { transaction_type, payment_method } = ready.payment;
  if (transaction_type === "REBILL") {
    const token = ctx.ledger.tokens.find(mid, ready.tokenbilling?.token_id ?? "");
    return token ? { kind: "token", token } : refuseField("tokenbilling.token_id", "unknown token");
  }
  if (payment_method === VIRTUAL_ACCOUNT_METHOD && transaction_type !== "PAYER_AUTH")
    return { kind: "virtual_account" };
  return { kind: "card", presented: readPlaintextCard(mid, body, ctx.ledger, ctx.clock.now()) };
}

const UNIQUE_TOKEN_REFUSAL: Refusal = {
  rescode: "EC00",
  resmsg: "Invalid parameter: tokenbilling.unique_token_id (a token already exists for this card)",
};

/** The window's outcome as verify fields: a payer authentication, or the checkout of its order. */
function windowResult(ctx: RouteContext, mid: string, ready: ReadyRequest, source: FundingSource) {
  const { payment, buyer } = ready;
  if (payment.transaction_type === "PAYER_AUTH" && source.kind === "card") {
    const record = ctx.ledger.payerAuths.create(
      mid,
      {
        orderId: payment.order_id,
        currency: payment.currency,
        amount: payment.amount,
        card: source.presented.card,
        cardExpiry: source.presented.expiry,
        email: buyer.email,
        otherParam: ready.other_param,
      },
      ctx.clock.now(),
    );
    return payerAuthResult(record);
  }
  const result = checkout(ctx, {
    mid,
    orderId: payment.order_id,
    transactionType: payment.transaction_type,
    capture: payment.transaction_type === "AUTHORIZE" ? "AUTH" : "SALE",
    currency: payment.currency,
    amount: payment.amount,
    source,
    // The window authenticates the payer itself.
    payerAuthenticated: true,
    refusal: tokenConflict(ctx.ledger, mid, source, ready.tokenbilling) ? UNIQUE_TOKEN_REFUSAL : undefined,
    email: buyer.email,
    otherParam: ready.other_param,
    statusUrl: ready.url.status_url,
    tokenbilling: ready.tokenbilling,
    recurring: ready.recurring,
  });
  return checkoutResult(result, {
    depositor: buyer.name,
    dueDate: ready.settings?.virtualaccount_expiry_date,
  });
}

/**
 * The customer finishes the window with `card` (the window's fields, or the JSON route's body): a bad card throws
 * HE0x and leaves the window open; otherwise the window completes once and its result goes to status_url (awaited,
 * so the caller sees the merchant's reply in the delivery log). Answers the result's fields and the window's request.
 */
export async function finishWindow(
  fgkey: string,
  card: unknown,
  ctx: RouteContext,
): Promise<{ readonly result: Readonly<Record<string, string>>; readonly ready: ReadyRequest }> {
  const window = ctx.ledger.windows.find(fgkey);
  const merchant = window && ctx.merchants.byMid(window.mid);
  if (!window || !merchant) return refuseField("fgkey", "no such window");
  if (window.state === "completed") return duplicateCall("the window was completed before");
  const ready = parseFields(readyRequest, window.request);
  const source = windowSource(ctx, merchant.mid, ready, card);
  ctx.ledger.windows.complete(fgkey);
  const form = ctx.callbackForm();
  const result = signedQuery(
    merchant.apiKey,
    inCallbackForm(windowResult(ctx, merchant.mid, ready, source), form),
  );
  await ctx.deliver.statusUrl(ready.url.status_url, result, form);
  return { result, ready };
}

/** The window completed without a browser: the answer shows the return_url the browser would be sent to. */
async function completeWindow(request: SandboxRequest<{ fgkey: string }>, ctx: RouteContext): Promise<Reply> {
  const { result, ready } = await finishWindow(request.params.fgkey, request.body, ctx);
  return okReply({
    result,
    status_url: ready.url.status_url,
    return_url: withQuery(ready.url.return_url, result),
  });
}

/** The bank reports the deposit: REGISTERED → SALE, and the deposit notice goes to status_url only. */
async function deposit(
  request: SandboxRequest<{ transaction_id: string }>,
  ctx: RouteContext,
): Promise<Reply> {
  const { transaction_id } = request.params;
  const payment =
    ownedBy(ctx.merchants, (mid) => ctx.ledger.payments.findTransaction(mid, transaction_id)) ??
    unknownTransaction();
  const merchant = ctx.merchants.byMid(payment.mid) ?? unknownTransaction();
  const result = ctx.ledger.payments.confirmDeposit(payment.mid, transaction_id);
  if (!result.ok) return stateRefusal(`a ${payment.status} transaction takes no deposit`);
  saleCompleted(ctx, result.value);
  const form = ctx.callbackForm();
  const query = signedQuery(merchant.apiKey, inCallbackForm(paymentResult(result.value), form));
  if (payment.statusUrl !== undefined) await ctx.deliver.statusUrl(payment.statusUrl, query, form);
  return okReply({ result: query, status_url: payment.statusUrl });
}

/** A card on file without a payment (for example a declining test card, whose REBILLs then decline). */
const tokenCreation = plaintextCard
  .pick({ card_number: true, expiry_date: true })
  .extend({ mid: merchantId });

const TOKEN_ACTIONS = {
  expire: "expired",
  revoke: "revoked",
  reactivate: "active",
} as const satisfies Record<string, TokenStatus>;
const TOKEN_ACTION_NAMES = [
  "expire",
  "revoke",
  "reactivate",
] as const satisfies readonly (keyof typeof TOKEN_ACTIONS)[];

function tokenStatusRoute(action: (typeof TOKEN_ACTION_NAMES)[number]): RouteDefinition {
  return defineRoute({
    ...sandboxRoute,
    name: `sandbox.tokens.${action}`,
    method: "POST",
    path: `/sandbox/tokens/:token_id/${action}`,
    body: "none",
    handler: (request, { merchants, ledger, clock }) => {
      const { token_id } = request.params;
      const token =
        ownedBy(merchants, (mid) => ledger.tokens.find(mid, token_id)) ??
        refuseField("token_id", "unknown token");
      ledger.tokens.setStatus(token.mid, token_id, TOKEN_ACTIONS[action], clock.now());
      return okReply({ token_id, status: TOKEN_ACTIONS[action] });
    },
  });
}

export const paymentSandboxRoutes: readonly RouteDefinition[] = [
  defineRoute({
    ...sandboxRoute,
    name: "sandbox.windows.complete",
    method: "POST",
    path: "/sandbox/windows/:fgkey/complete",
    body: "optional",
    handler: completeWindow,
  }),
  defineRoute({
    ...sandboxRoute,
    name: "sandbox.deposits",
    method: "POST",
    path: "/sandbox/deposits/:transaction_id",
    body: "none",
    handler: deposit,
  }),
  defineRoute({
    ...sandboxRoute,
    name: "sandbox.tokens.create",
    method: "POST",
    path: "/sandbox/tokens",
    handler: (request, { merchants, ledger, clock }) => {
      const body = parseBody(tokenCreation, request.body);
      if (!merchants.byMid(body.mid)) refuseField("mid", "unknown merchant");
      const card = summarizeCard(body.mid, body.card_number);
      const created = ledger.tokens.create(
        body.mid,
        { card, cardExpiry: body.expiry_date, unique: false },
        clock.now(),
      );
      return created.ok ? okReply({ token_id: created.value.tokenId }) : refuseField("card_number");
    },
  }),
  ...TOKEN_ACTION_NAMES.map(tokenStatusRoute),
  defineRoute({
    ...sandboxRoute,
    name: "sandbox.receipts",
    method: "GET",
    path: "/sandbox/receipts/:transaction_id",
    handler: (request, { merchants, ledger }) => {
      const { transaction_id } = request.params;
      const payment =
        ownedBy(merchants, (mid) => ledger.payments.findTransaction(mid, transaction_id)) ??
        unknownTransaction();
      return okReply({
        receipt: {
          mid: payment.mid,
          order_id: payment.orderId,
          transaction_id: payment.transactionId,
          transaction_date: payment.transactionDate,
          status: payment.status,
          currency: payment.currency,
          amount: payment.amount,
          balance: payment.balance,
          card_number1: payment.card?.first4,
          card_number4: payment.card?.last4,
        },
      });
    },
  }),
];
