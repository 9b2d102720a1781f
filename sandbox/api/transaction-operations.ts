import { saleCompleted, VIRTUAL_ACCOUNT_METHOD } from "../acquirer/card-payments";
import { okReply, type Reply } from "../http/replies";
import type { RouteContext, SandboxRequest } from "../http/routes";
import { compareAmounts } from "../shared/decimal";
import type { PaymentRecord, RefundRecord } from "../state/payment-store";
import { checkMid, parseBody, refuseField, stateRefusal, unknownTransaction } from "./payment-codes";
import {
  type CancelRequest,
  cancelRequestOf,
  captureRequest,
  receiptUrlRequest,
  retrieveRequest,
  settleRequest,
  transactionIdParam,
} from "./payment-requests";

// The payment API's operations on recorded transactions: retrieve, cancel, capture, settle and the receipt link.

export type MerchantContext = RouteContext<"basic">;

/** The sandbox's own address as the caller reached it (receipt links). */
function sandboxBaseUrl(request: SandboxRequest): string {
  return `http://${request.headers.host ?? "127.0.0.1"}`;
}

/** The transaction of a `:transaction_id` path: EC1002 when not 24 characters or not this merchant's. */
function pathTransaction({ ledger, merchant }: MerchantContext, transactionId: string): PaymentRecord {
  const param = transactionIdParam.safeParse({ transaction_id: transactionId });
  const payment = param.success ? ledger.payments.findTransaction(merchant.mid, transactionId) : undefined;
  return payment ?? unknownTransaction();
}

/** A follow-up call names the original order: order_id and currency EC00, amount HE03 when they differ. */
export function checkSameOrder(
  original: { orderId: string; currency: string; amount: string },
  sent: { order_id: string; currency: string; amount: string },
): void {
  if (sent.order_id !== original.orderId) refuseField("payment.order_id", "not the transaction's order");
  if (sent.currency !== original.currency) refuseField("payment.currency", "not the transaction's currency");
  if (compareAmounts(sent.amount, original.amount) !== 0)
    refuseField("payment.amount", "not the transaction's amount");
}

export const cardInfo = (payment: PaymentRecord) =>
  payment.card && { card_number1: payment.card.first4, card_number4: payment.card.last4 };

/** The payment record of retrieve; REFUND / PARTIAL_REFUND with the refund fields for a refund_id look-up. */
function paymentView(payment: PaymentRecord, refund?: RefundRecord) {
  return {
    status: refund ? (refund.type === "F" ? "REFUND" : "PARTIAL_REFUND") : payment.status,
    order_id: payment.orderId,
    currency: payment.currency,
    amount: payment.amount,
    transaction_id: payment.transactionId,
    transaction_date: refund?.refundDate ?? payment.transactionDate,
    balance: refund?.balanceAfter ?? payment.balance,
    auth_code: payment.authCode,
    payment_method: payment.paymentMethod,
    refund_id: refund?.refundId,
    refund_transaction_id: refund?.refundTransactionId,
    refund_amount: refund?.amount,
  };
}

/** What retrieve answers for an order or transaction the gateway never saw (live; README, The real gateway). */
export const NO_TRANSACTION = { rescode: "Q004", resmsg: "No Transaction" } as const;

function retrieved(
  mid: string,
  payment: PaymentRecord | undefined,
  orderId: string,
  refund?: RefundRecord,
): Reply {
  if (!payment) {
    return { status: 200, body: { ...NO_TRANSACTION, mid, payment: { status: "NONE", order_id: orderId } } };
  }
  return okReply({
    mid,
    payment: paymentView(payment, refund),
    card_info: cardInfo(payment),
    other_param: payment.otherParam,
  });
}

export function retrieve(request: SandboxRequest, { merchant, ledger }: MerchantContext): Reply {
  const body = parseBody(retrieveRequest, request.body);
  checkMid("mid", body.mid, merchant.mid);
  const { order_id, transaction_id = "", refund_id = "" } = body.payment;
  switch (body.key_field) {
    case "order_id":
      // An unknown order and a refused one alike: Q004, no transaction (the engine voids its attempt).
      return retrieved(merchant.mid, ledger.payments.findFinalTransaction(merchant.mid, order_id), order_id);
    case "transaction_id": {
      const payment = ledger.payments.findTransaction(merchant.mid, transaction_id);
      if (payment && payment.orderId !== order_id)
        refuseField("payment.order_id", "not the transaction's order");
      return retrieved(merchant.mid, payment, order_id);
    }
    case "refund_id": {
      const refund = ledger.payments.findRefund(merchant.mid, refund_id);
      if (!refund) return retrieved(merchant.mid, undefined, order_id);
      if (refund.transactionId !== transaction_id)
        refuseField("payment.transaction_id", "not the refund's transaction");
      return retrieved(
        merchant.mid,
        ledger.payments.findTransaction(merchant.mid, transaction_id),
        order_id,
        refund,
      );
    }
  }
}

function cancelReply(mid: string, payment: PaymentRecord, refund: RefundRecord, body: CancelRequest): Reply {
  return okReply({
    mid,
    refund: {
      refund_amount: refund.amount,
      refund_id: refund.refundId,
      refund_date: refund.refundDate,
      refund_transaction_id: refund.refundTransactionId,
    },
    payment: {
      order_id: payment.orderId,
      currency: payment.currency,
      amount: payment.amount,
      transaction_id: payment.transactionId,
      balance: refund.balanceAfter,
      auth_code: payment.authCode,
      payment_method: payment.paymentMethod,
    },
    other_param: body.other_param,
  });
}

/** The same cancel again: same transaction, type, reason and (when given) amount. */
function sameCancel(refund: RefundRecord, payment: PaymentRecord, body: CancelRequest): boolean {
  const { refund_type, refund_amount, reason } = body.refund;
  return (
    refund.transactionId === payment.transactionId &&
    refund.type === refund_type &&
    refund.reason === reason &&
    (refund_amount === undefined || compareAmounts(refund_amount, refund.amount) === 0)
  );
}

export function cancel(request: SandboxRequest<{ transaction_id: string }>, ctx: MerchantContext): Reply {
  const { merchant, ledger, clock } = ctx;
  const payment = pathTransaction(ctx, request.params.transaction_id);
  const virtualAccount = payment.paymentMethod === VIRTUAL_ACCOUNT_METHOD;
  const body = parseBody(cancelRequestOf(virtualAccount), request.body);
  checkMid("mid", body.mid, merchant.mid);
  checkSameOrder(payment, body.payment);
  const earlier = ledger.payments.findRefund(merchant.mid, body.refund.refund_id);
  if (earlier) {
    // A repeated cancel (a retry after an unknown outcome) answers the original refund; a different one is refused.
    if (!sameCancel(earlier, payment, body))
      refuseField("refund.refund_id", "already used by another cancel");
    return cancelReply(merchant.mid, payment, earlier, body);
  }
  const result = ledger.payments.applyRefund(
    merchant.mid,
    payment.transactionId,
    {
      refundId: body.refund.refund_id,
      type: body.refund.refund_type,
      amount: body.refund.refund_amount,
      reason: body.refund.reason,
    },
    clock.now(),
  );
  if (result.ok) return cancelReply(merchant.mid, result.value.payment, result.value.refund, body);
  switch (result.error) {
    case "not_refundable":
      return stateRefusal(`a ${payment.status} transaction cannot be cancelled`);
    case "transaction_not_found":
      return unknownTransaction();
    case "refund_id_exists":
      return refuseField("refund.refund_id", "already used by another cancel");
    default:
      // exceeds_balance, nothing_to_refund, invalid_amount (F must take the whole balance)
      return refuseField("refund.refund_amount", "exceeds the balance or does not match the refund type");
  }
}

/** AUTH → SALE; a payment completed this way is announced like any sale. */
function captureNow(ctx: MerchantContext, payment: PaymentRecord): PaymentRecord {
  const result = ctx.ledger.payments.capture(ctx.merchant.mid, payment.transactionId, ctx.clock.now());
  if (!result.ok) return stateRefusal(`a ${payment.status} transaction cannot be captured`);
  saleCompleted(ctx, result.value);
  return result.value;
}

export function capture(request: SandboxRequest<{ transaction_id: string }>, ctx: MerchantContext): Reply {
  const { merchant } = ctx;
  const payment = pathTransaction(ctx, request.params.transaction_id);
  const body = parseBody(captureRequest, request.body);
  checkMid("mid", body.mid, merchant.mid);
  checkSameOrder(payment, body.payment);
  // Capturing a captured payment again (a retry) answers the same captured_date.
  const captured = payment.capturedDate === undefined ? captureNow(ctx, payment) : payment;
  return okReply({
    mid: merchant.mid,
    payment: {
      order_id: captured.orderId,
      transaction_id: captured.transactionId,
      currency: captured.currency,
      amount: captured.amount,
      lang: body.payment.lang,
      captured_date: captured.capturedDate,
      // The sandbox's acquirer takes partial cancels of captured payments.
      partially_cancelable: "Y",
    },
    other_param: body.other_param,
  });
}

export function settle(request: SandboxRequest<{ transaction_id: string }>, ctx: MerchantContext): Reply {
  const { merchant, ledger, clock } = ctx;
  const payment = pathTransaction(ctx, request.params.transaction_id);
  const body = parseBody(settleRequest, request.body);
  checkMid("mid", body.mid, merchant.mid);
  checkSameOrder(payment, body.payment);
  // Settling an AUTH acquires it too (seed: AUTH → SALE by the capture or the settle endpoint).
  if (payment.status === "AUTH") captureNow(ctx, payment);
  const result = ledger.payments.settle(merchant.mid, payment.transactionId, clock.now());
  if (!result.ok) return stateRefusal(`a ${payment.status} transaction cannot be settled`);
  return okReply({
    mid: merchant.mid,
    payment: {
      order_id: payment.orderId,
      transaction_id: payment.transactionId,
      currency: payment.currency,
      amount: payment.amount,
      settled_date: result.value.settledDate,
    },
  });
}

export function receiptUrl(request: SandboxRequest<{ transaction_id: string }>, ctx: MerchantContext): Reply {
  const payment = pathTransaction(ctx, request.params.transaction_id);
  const body = parseBody(receiptUrlRequest, request.body);
  checkMid("mid", body.mid, ctx.merchant.mid);
  if (payment.email?.toLowerCase() !== body.email.toLowerCase())
    refuseField("email", "not the payment's e-mail");
  const receipt = `${sandboxBaseUrl(request)}/sandbox/receipts/${encodeURIComponent(payment.transactionId)}`;
  return okReply({ receipt_url: receipt });
}
