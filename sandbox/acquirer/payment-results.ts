import { fgkeyOf } from "../shared/gateway-crypto";
import type { CardSummary } from "../state/card-summary";
import type { Ledger } from "../state/ledger";
import type { PayerAuthRecord } from "../state/payer-auth-store";
import type { OtherParam, PaymentRecord } from "../state/payment-store";
import type { RecurringRecord } from "../state/recurring-store";
import type { TokenRecord } from "../state/token-store";
import type { CallbackForm } from "./callback-forms";
import type { CheckedOut } from "./checkout";
import { SUCCESS_RESCODE, SUCCESS_RESMSG } from "./result-codes";

// The verify fields (seed 000): the window result sent to status_url and return_url, and the non-ui payment's
// response. Absent values are left out; every value is a string.

/** The SDK window version the seed's form reports as `ver`. */
export const WINDOW_VERSION = "1.0";

/** The real gateway's window version. */
const REAL_WINDOW_VERSION = "230";

/** Long name → older short name, for the parameters that have one. */
const SHORT_NAMES: Readonly<Record<string, string>> = {
  transaction_type: "txntype",
  order_id: "ref",
  currency: "cur",
  amount: "amt",
  transaction_id: "transid",
  auth_code: "authcode",
  transaction_date: "resdt",
  payer_auth_id: "payerauthid",
  payment_method: "paymethod",
  access_country: "accesscountry",
  card_holder: "cardholder",
  pay_to: "payto",
  card_number1: "cardno1",
  card_number4: "cardno4",
  base_currency: "basecur",
  base_amount: "baseamt",
  base_rate: "baserate",
  foreign_currency: "foreigncur",
  foreign_amount: "foreignamt",
  foreign_rate: "foreignrate",
  dcc_rate: "dccrate",
};
const LONG_NAMES: Readonly<Record<string, string>> = Object.fromEntries(
  Object.entries(SHORT_NAMES).map(([long, short]) => [short, long]),
);

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

/**
 * A converted payment's amounts (DCC): the order's as the base (rate 1: the merchant is paid in it), the card's as
 * the foreign amount; nothing for a payment in the order's currency.
 */
export function conversionFields(payment: Pick<PaymentRecord, "currency" | "amount" | "foreign">): Fields {
  const { foreign } = payment;
  if (foreign === undefined) return {};
  return {
    base_currency: payment.currency,
    base_amount: payment.amount,
    base_rate: "1",
    dcc_rate: foreign.rate,
    foreign_currency: foreign.currency,
    foreign_amount: foreign.amount,
    foreign_rate: foreign.rate,
  };
}

/** The result of a recorded transaction (approved or refused). */
export function paymentResult(payment: PaymentRecord, extras: ResultExtras = {}): Fields {
  return {
    ...orderFields(payment),
    ...conversionFields(payment),
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

/** A result in one callback form; blanks for the DCC and risk fields, as the real gateway sends them. */
export function inCallbackForm(fields: Readonly<Fields>, form: CallbackForm): Fields {
  if (form === "seed") return { ...fields };
  const { status: _status, ...rest } = fields;
  const real: Fields = {
    param1: "",
    param2: "",
    param3: "",
    dm_decision: "",
    dm_reject: "",
    dm_review: "",
    ...rest,
    ver: REAL_WINDOW_VERSION,
  };
  if (form === "real") return real;
  return Object.fromEntries(Object.entries(real).map(([key, value]) => [SHORT_NAMES[key] ?? key, value]));
}

/** The fields plus their fgkey, which verify recomputes over every other parameter. */
export function signedQuery(apiKey: string, fields: Fields): Fields {
  return { ...fields, fgkey: fgkeyOf(apiKey, fields) };
}

/** A result's parameters under the long names, whichever form it came in. */
function longNamed(params: URLSearchParams): Map<string, string> {
  return new Map([...params].map(([key, value]) => [LONG_NAMES[key] ?? key, value]));
}

/**
 * Whether a (correctly keyed) window result describes what the ledger holds: the merchant's order, and its
 * transaction or payer authentication with the same order, currency, amount and type.
 */
export function matchesLedger(ledger: Ledger, mid: string, query: URLSearchParams): boolean {
  const params = longNamed(query);
  const orderId = params.get("order_id") ?? "";
  if (params.get("mid") !== mid || !ledger.payments.findOrder(mid, orderId)) return false;
  const same = (record: { orderId: string; currency: string; amount: string }) =>
    record.orderId === orderId &&
    record.currency === params.get("currency") &&
    record.amount === params.get("amount");
  const transactionId = params.get("transaction_id");
  if (transactionId !== undefined) {
    const payment = ledger.payments.findTransaction(mid, transactionId);
    return (
      payment !== undefined && same(payment) && payment.transactionType === params.get("transaction_type")
    );
  }
  const payerAuthId = params.get("payer_auth_id");
  const payerAuth = payerAuthId === undefined ? undefined : ledger.payerAuths.find(mid, payerAuthId);
  return payerAuth !== undefined && same(payerAuth) && params.get("transaction_type") === "PAYER_AUTH";
}
