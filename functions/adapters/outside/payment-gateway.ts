import type { Billed, Customer, DeadEnd } from "../../core/base/model";
import { type Declined, type GatewayOutcome, success } from "../../core/base/outcome";
import type { ChargeItem } from "../../core/base/plan-price";
import type {
  CardPaymentRequest,
  CardPaymentResult,
  OrderLookup,
  PaymentGateway,
  RebillResult,
  RecurringRegistration,
  RefundRequest,
  RefundResult,
  WindowOutcome,
  WindowPrepared,
  WindowRequest,
  WindowResult,
} from "../../core/ports/payment-gateway";
import { gatewayDate } from "../../gateway/calendar";
import {
  DEFAULT_DECLINE_CODES,
  type DeclineCodes,
  deadEndOf,
  declineReasonOf,
  type DeadEnd as GatewayDeadEnd,
} from "../../gateway/decline-codes";
import { GatewayRequestError } from "../../gateway/errors";
import type { PaymentClient } from "../../gateway/payment-client";
import {
  classifyRescode,
  type Declined as GatewayDeclined,
  type GatewayFailure,
  type GatewayResult,
  SUCCESS_RESCODE,
} from "../../gateway/result";
import { parseStatusQuery, type StatusQuery } from "../../gateway/schemas/payment-window";

export interface PaymentGatewayOptions {
  /** Language of the gateway's customer-facing texts (receipts, e-mails). */
  readonly lang: string;
  /** The refusals no retry can mend, in the gateway's codes (its defaults when unset). */
  readonly declineCodes?: DeclineCodes;
  /**
   * The merchant's page of what it sells: each product line's link, which the gateway requires of a line. Unset: no
   * product lines are sent (the gateway takes a payment without them).
   */
  readonly productLink?: string;
}

const DEAD_ENDS = {
  token_expired: "token_expired",
  token_revoked: "token_revoked",
  dead_card: "card_required",
} as const satisfies Record<GatewayDeadEnd, DeadEnd>;

/**
 * A refusal in the core's words: whether a retry could ever succeed, and why it was declined in the customer's
 * terms, are decided here from the gateway's codes.
 */
function declinedOf(codes: DeclineCodes, declined: GatewayDeclined): Declined {
  const deadEnd = deadEndOf(codes, declined);
  const reason = declineReasonOf(codes, declined);
  return deadEnd === undefined
    ? { ...declined, reason }
    : { ...declined, reason, deadEnd: DEAD_ENDS[deadEnd] };
}

/**
 * The client's result in the core's words. A request the client refused to send is our mistake, not the gateway's:
 * it is reported as `invalid`, nothing sent.
 */
async function outcomeOf<T>(
  codes: DeclineCodes,
  call: () => Promise<GatewayResult<T>>,
): Promise<GatewayOutcome<T>> {
  let result: GatewayResult<T>;
  try {
    result = await call();
  } catch (error) {
    if (error instanceof GatewayRequestError)
      return { kind: "invalid", code: "REQUEST", message: error.message };
    throw error;
  }
  return result.kind === "declined" ? declinedOf(codes, result) : result;
}

/** rescode 0000 without a sale is not a charge we can count on: retrieve settles it. */
function requireSale<T>(status: string, value: T): GatewayOutcome<T> {
  return status === "SALE"
    ? success(value)
    : { kind: "unknown", reason: `payment answered status ${status}` };
}

/**
 * What the card was billed when the gateway converted the payment into the card's currency (DCC): its foreign_*
 * fields, when they name another currency than the order's. The answers without a conversion leave them blank.
 */
function billedOf(
  order: { readonly currency: string },
  foreign: {
    readonly foreign_currency?: string;
    readonly foreign_amount?: string;
    readonly foreign_rate?: string;
  } = {},
): { readonly billed?: Billed } {
  const { foreign_currency: currency, foreign_amount: amount, foreign_rate: rate } = foreign;
  if (!currency || !amount || currency === order.currency) return {};
  return { billed: { currency, amount, ...(rate ? { rate } : {}) } };
}

/** retrieve's payment status, in the core's words. */
const ORDER_STATES = {
  SALE: "paid",
  AUTH: "authorized",
  REGISTERED: "awaiting_deposit",
  NONE: "none",
  REFUND: "refunded",
  PARTIAL_REFUND: "refunded",
} as const satisfies Record<string, OrderLookup["state"]>;

/**
 * What a verified window result says happened. The seed sends a status; the real gateway sends none, and its approved
 * PAYMENT window is a sale — unless it issued a virtual account, whose money comes with the deposit. Any other type
 * without a status (a PAYER_AUTH result) is not a sale.
 */
function windowOutcome(result: StatusQuery, codes: DeclineCodes): WindowOutcome {
  if (result.rescode !== SUCCESS_RESCODE) {
    const refusal: GatewayFailure = classifyRescode(result.rescode, result.resmsg, "read", result.errcode);
    const failure = refusal.kind === "declined" ? declinedOf(codes, refusal) : refusal;
    return { kind: "refused", code: result.rescode, failure };
  }
  const status =
    result.status ??
    (result.transaction_type !== "PAYMENT"
      ? undefined
      : result.virtual_account_number
        ? "REGISTERED"
        : "SALE");
  switch (status) {
    case "SALE":
      return {
        kind: "paid",
        transaction_id: result.transaction_id,
        ...billedOf(result, result),
        token_id: result.token_id,
        recurring_id: result.recurring_id,
        card: { first4: result.card_number1, last4: result.card_number4 },
      };
    case "REGISTERED":
      return { kind: "awaiting_deposit" };
    default:
      return { kind: "other", description: `status ${status ?? `(none, ${result.transaction_type})`}` };
  }
}

const masked = (first4: string | undefined, last4: string | undefined) =>
  first4 !== undefined && last4 !== undefined ? { first4, last4 } : undefined;

const buyerOf = (customer: Customer) => ({
  name: customer.name,
  email: customer.email,
  phone_number: customer.phone,
});

/** The customer's external_id rides in other_param.param1: the gateway's records and support then name it. */
const otherParamOf = (customer: Customer) =>
  customer.external_id === undefined ? {} : { other_param: { param1: customer.external_id } };

/** What the first payment asks the gateway to create: a token (token billing) or a recurring plan. */
function billingObjects(billing: "token" | "recurring", recurring: RecurringRegistration | undefined) {
  return {
    ...(billing === "token" ? { tokenbilling: { token_creation: "Y" as const } } : {}),
    ...(recurring
      ? {
          recurring: {
            recurring_amount: recurring.amount,
            // The gateway charges on a day of its own calendar (Korea).
            recurring_start_date: gatewayDate(new Date(recurring.first_charge_at)),
            recurring_interval: String(recurring.interval_months),
            recurring_noti_url: recurring.notify_url,
          },
        }
      : {}),
  };
}

/** The billing core's view of the gateway, on the typed payment client. */
export function createPaymentGateway(
  payments: PaymentClient,
  { lang, declineCodes = DEFAULT_DECLINE_CODES, productLink }: PaymentGatewayOptions,
): PaymentGateway {
  const translated = <T>(call: () => Promise<GatewayResult<T>>) => outcomeOf(declineCodes, call);
  /** A charge's line as the gateway's product[] (at most 3 lines; ours is one). */
  const productOf = (item: ChargeItem | undefined) =>
    item === undefined || productLink === undefined
      ? {}
      : {
          product: [
            {
              name: item.name,
              quantity: String(item.quantity),
              unit_price: item.unit_amount,
              link: productLink,
            },
          ],
        };
  return {
    async rebill({
      order_id,
      token_id,
      amount,
      currency,
      customer,
      item,
    }): Promise<GatewayOutcome<RebillResult>> {
      const outcome = await translated(() =>
        payments.rebill(token_id, {
          payment: { order_id, currency, amount, lang },
          buyer: buyerOf(customer),
          ...productOf(item),
          ...otherParamOf(customer),
        }),
      );
      if (outcome.kind !== "success") return outcome;
      // The token payment answers without a status: rescode 0000 is the sale.
      const { payment, foreign } = outcome.value;
      const { status = "SALE", transaction_id } = payment;
      return requireSale(status, { transaction_id, ...billedOf(payment, foreign) });
    },

    async findOrder({ order_id, amount, currency }): Promise<GatewayOutcome<OrderLookup>> {
      const outcome = await translated(() =>
        payments.retrieve({ key_field: "order_id", payment: { order_id, currency, amount, lang } }),
      );
      if (outcome.kind !== "success") return outcome;
      const found = outcome.value.payment;
      return success({
        state: ORDER_STATES[found.status],
        transaction_id: found.transaction_id,
        amount: found.amount,
        currency: found.currency,
      });
    },

    async findRefund({ refund_id, transaction_id, order_id, amount, currency }) {
      const outcome = await translated(() =>
        payments.retrieve({
          key_field: "refund_id",
          payment: { order_id, currency, amount, lang, transaction_id, refund_id },
        }),
      );
      if (outcome.kind !== "success") return outcome;
      const { payment } = outcome.value;
      if (payment.status === "NONE") return success({ found: false } as const);
      // The refund's own transaction: retrieve by refund_id answers its REFUND / PARTIAL_REFUND record.
      return payment.status === "REFUND" || payment.status === "PARTIAL_REFUND"
        ? success({ found: true, refund_transaction_id: payment.refund_transaction_id } as const)
        : { kind: "unknown", reason: `retrieve by refund_id answered status ${payment.status}` };
    },

    async payWithCard(request: CardPaymentRequest): Promise<GatewayOutcome<CardPaymentResult>> {
      const { customer, card, recurring } = request;
      const outcome = await translated(() =>
        payments.payment({
          payment: { order_id: request.order_id, currency: request.currency, amount: request.amount, lang },
          buyer: buyerOf(customer),
          ...otherParamOf(customer),
          card: { card_number: card.number, expiry_date: card.expiry, cvc: card.cvc },
          ...productOf(request.item),
          ...billingObjects(request.billing, recurring),
        }),
      );
      if (outcome.kind !== "success") return outcome;
      const value = outcome.value;
      return requireSale(value.status, {
        transaction_id: value.transaction_id,
        ...billedOf(value, value),
        token_id: value.token_id,
        recurring_id: value.recurring_id,
        card: masked(value.card_number1, value.card_number4),
      });
    },

    async refund(request: RefundRequest): Promise<GatewayOutcome<RefundResult>> {
      const outcome = await translated(() =>
        payments.cancel(request.transaction_id, {
          refund: {
            refund_type: request.type,
            refund_amount: request.amount,
            refund_id: request.refund_id,
            reason: request.reason,
          },
          payment: {
            order_id: request.order_id,
            currency: request.currency,
            amount: request.original_amount,
            balance: request.balance,
            lang,
          },
        }),
      );
      if (outcome.kind !== "success") return outcome;
      return success({ refund_transaction_id: outcome.value.refund.refund_transaction_id });
    },

    adjustRecurring: (recurringId, amount) =>
      translated(() => payments.adjustRecurring(recurringId, { adjust_amount: amount })),

    deleteRecurring: (recurringId) => translated(() => payments.deleteRecurring(recurringId)),

    deleteToken: (tokenId) => translated(() => payments.deleteToken(tokenId)),

    async receiptUrl(transactionId, email) {
      const outcome = await translated(() => payments.receiptUrl(transactionId, { email }));
      if (outcome.kind !== "success") return outcome;
      const { receipt_url } = outcome.value;
      return receipt_url === undefined || receipt_url === ""
        ? { kind: "unknown", reason: "the gateway answered no receipt URL" }
        : success({ receipt_url });
    },

    async prepareWindow(request: WindowRequest): Promise<GatewayOutcome<WindowPrepared>> {
      const outcome = await translated(() =>
        payments.ready({
          payment: {
            transaction_type: "PAYMENT",
            order_id: request.order_id,
            currency: request.currency,
            amount: request.amount,
            lang: request.lang ?? lang,
          },
          url: { return_url: request.return_url, status_url: request.status_url },
          buyer: buyerOf(request.customer),
          ...otherParamOf(request.customer),
          ...productOf(request.item),
          ...billingObjects(request.billing, request.recurring),
        }),
      );
      if (outcome.kind !== "success") return outcome;
      return success({ fgkey: outcome.value.fgkey, launch: outcome.value.launch });
    },

    windowOrderOf(query) {
      const result = parseStatusQuery(query);
      return result.success ? result.data.order_id : undefined;
    },

    async verifyWindowResult(query): Promise<GatewayOutcome<WindowResult>> {
      const verified = await translated(() => payments.verify(query));
      if (verified.kind !== "success") return verified;
      const result = parseStatusQuery(query);
      return result.success
        ? success({
            order_id: result.data.order_id,
            currency: result.data.currency,
            amount: result.data.amount,
            outcome: windowOutcome(result.data, declineCodes),
          })
        : { kind: "invalid", code: "WINDOW_RESULT", message: "the window result is incomplete" };
    },
  };
}
