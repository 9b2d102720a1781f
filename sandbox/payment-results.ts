import { computeFgkey } from "../functions/gateway/fgkey";
import { SUCCESS_RESCODE } from "../functions/gateway/schemas/primitives";
import type { CardSummary } from "./cards";
import type { CheckedOut } from "./checkout";
import type { Ledger } from "./ledger";
import type { PayerAuthRecord } from "./payer-auth-store";
import type { OtherParam, PaymentRecord } from "./payment-store";
import type { RecurringRecord } from "./recurring-store";
import { SUCCESS_RESMSG } from "./replies";
import type { TokenRecord } from "./token-store";

// The verify fields (seed 000): the window result sent to status_url and return_url, and the non-ui payment's
// response. Absent values are left out; every value is a string.

/** The SDK window version reported as `ver` (the sample query's spelling; the client reads it as version). */
export const WINDOW_VERSION = "1.0";

type Fields = Record<string, string>;

function defined(fields: Readonly<Record<string, string | undefined>>): Fields {
  const out: Fields = {};
  for (const [key, value] of Object.entries(fields)) if (value !== undefined) out[key] = value;
  return out;
}

interface OrderFacts {
  readonly mid: string;
  readonly orderId: string;
  readonly currency: string;
  readonly amount: string;
  readonly email?: string;
  readonly otherParam?: OtherParam;
  readonly card?: CardSummary;
}

function orderFields(facts: OrderFacts): Fields {
  return defined({
    ver: WINDOW_VERSION,
    mid: facts.mid,
    order_id: facts.orderId,
    currency: facts.currency,
    amount: facts.amount,
    email: facts.email,
    param1: facts.otherParam?.param1,
    param2: facts.otherParam?.param2,
    card_number1: facts.card?.first4,
    card_number4: facts.card?.last4,
  });
}

export interface ResultExtras {
  /** The token issued by this payment (token_creation Y). */
  readonly createdToken?: TokenRecord;
  /** The plan this payment registered. */
  readonly recurring?: RecurringRecord;
  /** virtual_account_* of a REGISTERED order. */
  readonly virtualAccount?: Fields;
}

/** The result of a recorded transaction (approved or refused). */
export function paymentResult(payment: PaymentRecord, extras: ResultExtras = {}): Fields {
  return {
    ...orderFields(payment),
    ...defined({
      transaction_type: payment.transactionType,
      rescode: payment.rescode,
      resmsg: payment.resmsg,
      errcode: payment.errcode,
      status: payment.status,
      transaction_id: payment.transactionId,
      transaction_date: payment.transactionDate,
      auth_code: payment.authCode,
      payment_method: payment.paymentMethod,
      payer_auth_id: payment.payerAuthId,
      token_id: extras.createdToken?.tokenId ?? payment.tokenId,
      token_creation: extras.createdToken ? "Y" : undefined,
      recurring_payment: extras.recurring ? "Y" : undefined,
      recurring_id: extras.recurring?.recurringId,
      recurring_next_date: extras.recurring?.nextDate,
    }),
    ...extras.virtualAccount,
  };
}

/** The result of a PAYER_AUTH window: authenticated, authorisation pending confirm (status AUTH, no transaction). */
export function payerAuthResult(record: PayerAuthRecord): Fields {
  return {
    ...orderFields(record),
    transaction_type: "PAYER_AUTH",
    rescode: SUCCESS_RESCODE,
    resmsg: SUCCESS_RESMSG,
    status: "AUTH",
    payer_auth_id: record.payerAuthId,
    transaction_date: record.createdAt,
  };
}

/** What a window or non-ui payment knows of the buyer, for the virtual-account fields. */
export interface VirtualAccountDetails {
  readonly depositor?: string;
  /** settings.virtualaccount_expiry_date, YYYYMMDDHH. */
  readonly dueDate?: string;
}

/** The result of a checkout; a REGISTERED virtual-account order also shows its deposit account (sandbox values). */
export function checkoutResult(result: CheckedOut, details: VirtualAccountDetails): Fields {
  const { payment } = result;
  const virtualAccount =
    payment.status === "REGISTERED"
      ? defined({
          virtual_account_number: `990${payment.transactionId.slice(-11)}`,
          virtual_account_bank_name: "SANDBOX BANK",
          virtual_account_depositor: details.depositor,
          virtual_account_due_date: details.dueDate,
        })
      : undefined;
  return paymentResult(payment, { createdToken: result.token, recurring: result.recurring, virtualAccount });
}

/** The fields plus their fgkey, which verify recomputes over every other parameter. */
export function signedQuery(apiKey: string, fields: Fields): Fields {
  return { ...fields, fgkey: computeFgkey(apiKey, fields) };
}

/**
 * Whether a (correctly keyed) window result describes what the ledger holds: the merchant's order, and its
 * transaction or payer authentication with the same order, currency, amount and type.
 */
export function matchesLedger(ledger: Ledger, mid: string, params: URLSearchParams): boolean {
  const orderId = params.get("order_id") ?? "";
  if (params.get("mid") !== mid || !ledger.payments.findOrder(mid, orderId)) return false;
  const same = (record: { orderId: string; currency: string; amount: string }) =>
    record.orderId === orderId &&
    record.currency === params.get("currency") &&
    record.amount === params.get("amount");
  const transactionId = params.get("transaction_id");
  if (transactionId !== null) {
    const payment = ledger.payments.findTransaction(mid, transactionId);
    return (
      payment !== undefined && same(payment) && payment.transactionType === params.get("transaction_type")
    );
  }
  const payerAuthId = params.get("payer_auth_id");
  const payerAuth = payerAuthId === null ? undefined : ledger.payerAuths.find(mid, payerAuthId);
  return payerAuth !== undefined && same(payerAuth) && params.get("transaction_type") === "PAYER_AUTH";
}
