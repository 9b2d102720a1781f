import { compareAmounts, isDecimal, isZeroAmount, subtractAmounts } from "../shared/decimal";
import type { CardSummary } from "./card-summary";
import { fail, type LedgerCore, mapFor, ok, type StoreResult } from "./ledger-core";

/** The status of a payment transaction (seed 000); REFUND and PARTIAL_REFUND describe refund records instead. */
export type PaymentStatus = "SALE" | "AUTH" | "REGISTERED" | "NONE";

/**
 * prepared: created (a window readied, or a payment about to be recorded); completed: its transaction succeeded;
 * failed: its transaction was refused. Either final state burns the order id: one transaction per order.
 */
export type OrderState = "prepared" | "completed" | "failed";

export interface OrderRecord {
  readonly mid: string;
  readonly orderId: string;
  readonly state: OrderState;
  readonly createdAt: string;
  readonly transactionId?: string;
}

export interface OtherParam {
  readonly param1?: string;
  readonly param2?: string;
  readonly param3?: string;
}

/** A payment converted into the card's currency (DCC): what the holder paid, and the rate of one unit of the order's. */
export interface Conversion {
  readonly currency: string;
  readonly amount: string;
  readonly rate: string;
}

/** What an endpoint supplies for a new transaction; the store adds the id, date and balance. */
export interface NewTransaction {
  /** The window or API type: PAYMENT, AUTHORIZE, PAYER_AUTH, REBILL, PAYMENT_PA, AUTHORIZE_PA… */
  readonly transactionType: string;
  /** NONE records a refused attempt, which burns the order id. */
  readonly status: PaymentStatus;
  readonly currency: string;
  readonly amount: string;
  readonly rescode: string;
  readonly resmsg: string;
  /** The v2 named reason of a refusal. */
  readonly errcode?: string;
  readonly paymentMethod?: string;
  readonly authCode?: string;
  readonly card?: CardSummary;
  readonly tokenId?: string;
  readonly recurringId?: string;
  readonly payerAuthId?: string;
  readonly email?: string;
  readonly otherParam?: OtherParam;
  /** Where later notices of this payment go (the virtual-account deposit notice). */
  readonly statusUrl?: string;
  /** The holder paid in the card's currency (DCC). */
  readonly foreign?: Conversion;
}

export interface PaymentRecord extends NewTransaction {
  readonly transactionId: string;
  readonly mid: string;
  readonly orderId: string;
  /** YYYYMMDDHHMMSS. */
  readonly transactionDate: string;
  /** Refundable amount: amount minus refunds; never below zero. */
  readonly balance: string;
  readonly capturedDate?: string;
  readonly settledDate?: string;
  readonly refundIds?: readonly string[];
  /** Set once by a chargeback; its deduction takes the remaining balance. */
  readonly chargeback?: ChargebackRecord;
}

export type RefundType = "F" | "P";

export interface RefundRequest {
  /** The merchant's unique cancel number. */
  readonly refundId: string;
  readonly type: RefundType;
  /** Required for P; for F, omitted means the whole balance and a given value must equal it. */
  readonly amount?: string;
  readonly reason: string;
}

export interface RefundRecord {
  readonly refundId: string;
  readonly refundTransactionId: string;
  readonly transactionId: string;
  readonly mid: string;
  readonly orderId: string;
  readonly type: RefundType;
  readonly currency: string;
  readonly amount: string;
  readonly reason: string;
  /** YYYYMMDDHHMMSS. */
  readonly refundDate: string;
  /** The payment's balance after this refund. */
  readonly balanceAfter: string;
}

/**
 * The lifecycle of a chargeback (README, The real gateway: the gateway reports each status change): REPORTED when the
 * issuer files it, then DEDUCTION (the money is taken from the merchant) or RESOLVED (the merchant won). Only
 * DEDUCTION is a status name the gateway's documents show; the other two are the sandbox's.
 */
export type ChargebackStatus = "REPORTED" | "DEDUCTION" | "RESOLVED";

/** An acquirer chargeback of a SALE (triggered in the sandbox): its deduction reverses the balance left. */
export interface ChargebackRecord {
  /** SBXC…, 24 characters: the chargeback's own transaction id in reconciliation. */
  readonly chargebackId: string;
  readonly transactionId: string;
  readonly mid: string;
  readonly orderId: string;
  readonly currency: string;
  /** What is disputed: the balance when reported; what was taken once deducted. */
  readonly amount: string;
  readonly reason: string;
  readonly status: ChargebackStatus;
  /** YYYYMMDDHHMMSS of the report. */
  readonly chargebackDate: string;
  /** YYYYMMDD by which the merchant may answer. */
  readonly deadline: string;
  /** YYYYMMDDHHMMSS of the deduction or the resolution. */
  readonly deductedDate?: string;
  readonly resolvedDate?: string;
}

export type ChargebackError =
  | "transaction_not_found"
  | "not_chargeable"
  | "already_charged_back"
  | "no_open_chargeback";

export type RefundError =
  | "transaction_not_found"
  | "refund_id_exists"
  | "not_refundable"
  | "nothing_to_refund"
  | "invalid_amount"
  | "exceeds_balance";

type Mutable<T> = { -readonly [K in keyof T]: T[K] };
type MutableOrder = Mutable<OrderRecord>;
type MutablePayment = Mutable<PaymentRecord> & { refundIds?: string[] };

const REFUNDABLE: ReadonlySet<PaymentStatus> = new Set(["SALE", "AUTH"]);

/** Orders (unique order_id per mid), their transactions, and refunds. */
export class PaymentStore {
  readonly #core: LedgerCore;
  readonly #orders = new Map<string, Map<string, MutableOrder>>();
  readonly #payments = new Map<string, MutablePayment>();
  readonly #refunds = new Map<string, Map<string, RefundRecord>>();
  #orderCount = 0;
  #refundCount = 0;

  constructor(core: LedgerCore) {
    this.#core = core;
  }

  /** A new order; refused when the id was ever used by this merchant (a failed order's id is not reusable). */
  createOrder(mid: string, orderId: string, now: Date): StoreResult<OrderRecord, "order_exists"> {
    const orders = mapFor(this.#orders, mid);
    if (orders.has(orderId)) return fail("order_exists");
    const order: MutableOrder = {
      mid,
      orderId,
      state: "prepared",
      createdAt: this.#core.stamp(now),
      transactionId: undefined,
    };
    orders.set(orderId, order);
    this.#orderCount++;
    this.#core.bump();
    return ok(order);
  }

  findOrder(mid: string, orderId: string): OrderRecord | undefined {
    return this.#orders.get(mid)?.get(orderId);
  }

  /**
   * Records the one transaction of a prepared order: a success completes the order, a NONE (refused) attempt fails
   * it. A completed or failed order takes no other transaction (the endpoint answers a duplicate call).
   */
  recordTransaction(
    mid: string,
    orderId: string,
    input: NewTransaction,
    now: Date,
  ): StoreResult<PaymentRecord, "order_not_found" | "order_completed" | "order_failed"> {
    const order = this.#orders.get(mid)?.get(orderId);
    if (!order) return fail("order_not_found");
    if (order.state !== "prepared")
      return fail(order.state === "failed" ? "order_failed" : "order_completed");
    const payment: MutablePayment = {
      transactionId: this.#core.nextId("transaction", mid),
      mid,
      orderId,
      transactionType: input.transactionType,
      status: input.status,
      currency: input.currency,
      amount: input.amount,
      balance: input.status === "NONE" ? "0" : input.amount,
      rescode: input.rescode,
      resmsg: input.resmsg,
      errcode: input.errcode,
      transactionDate: this.#core.stamp(now),
      paymentMethod: input.paymentMethod,
      authCode: input.authCode,
      card: input.card,
      tokenId: input.tokenId,
      recurringId: input.recurringId,
      payerAuthId: input.payerAuthId,
      email: input.email,
      otherParam: input.otherParam,
      statusUrl: input.statusUrl,
      foreign: input.foreign,
      capturedDate: undefined,
      settledDate: undefined,
      refundIds: undefined,
      chargeback: undefined,
    };
    this.#payments.set(payment.transactionId, payment);
    order.transactionId = payment.transactionId;
    order.state = input.status === "NONE" ? "failed" : "completed";
    this.#core.bump();
    return ok(payment);
  }

  /** The transaction if it belongs to this merchant. */
  findTransaction(mid: string, transactionId: string): PaymentRecord | undefined {
    const payment = this.#payments.get(transactionId);
    return payment?.mid === mid ? payment : undefined;
  }

  /** Retrieve by order_id: the order's authorized (or since refunded) transaction; none for a refused one. */
  findFinalTransaction(mid: string, orderId: string): PaymentRecord | undefined {
    const transactionId = this.#orders.get(mid)?.get(orderId)?.transactionId;
    const payment = transactionId === undefined ? undefined : this.#payments.get(transactionId);
    return payment?.status === "NONE" ? undefined : payment;
  }

  /** Cancels all or part of a SALE or AUTH; the balance never goes below zero. */
  applyRefund(
    mid: string,
    transactionId: string,
    request: RefundRequest,
    now: Date,
  ): StoreResult<{ refund: RefundRecord; payment: PaymentRecord }, RefundError> {
    const payment = this.#payments.get(transactionId);
    if (!payment || payment.mid !== mid) return fail("transaction_not_found");
    const refunds = mapFor(this.#refunds, mid);
    if (refunds.has(request.refundId)) return fail("refund_id_exists");
    if (!REFUNDABLE.has(payment.status)) return fail("not_refundable");
    if (isZeroAmount(payment.balance)) return fail("nothing_to_refund");
    const amount = request.amount ?? (request.type === "F" ? payment.balance : undefined);
    if (amount === undefined || !isDecimal(amount) || compareAmounts(amount, "0") <= 0)
      return fail("invalid_amount");
    if (compareAmounts(amount, payment.balance) > 0) return fail("exceeds_balance");
    if (request.type === "F" && compareAmounts(amount, payment.balance) !== 0) return fail("invalid_amount");
    payment.balance = subtractAmounts(payment.balance, amount);
    const refund: RefundRecord = {
      refundId: request.refundId,
      refundTransactionId: this.#core.nextId("refundTransaction"),
      transactionId,
      mid,
      orderId: payment.orderId,
      type: request.type,
      currency: payment.currency,
      amount,
      reason: request.reason,
      refundDate: this.#core.stamp(now),
      balanceAfter: payment.balance,
    };
    refunds.set(refund.refundId, refund);
    payment.refundIds = [...(payment.refundIds ?? []), refund.refundId];
    this.#refundCount++;
    this.#core.bump();
    return ok({ refund, payment });
  }

  findRefund(mid: string, refundId: string): RefundRecord | undefined {
    return this.#refunds.get(mid)?.get(refundId);
  }

  /** A chargeback reported on a SALE with a balance: it disputes that balance, nothing is taken yet. */
  recordChargeback(
    mid: string,
    transactionId: string,
    reason: string,
    deadline: string,
    now: Date,
  ): StoreResult<{ chargeback: ChargebackRecord; payment: PaymentRecord }, ChargebackError> {
    const payment = this.#payments.get(transactionId);
    if (!payment || payment.mid !== mid) return fail("transaction_not_found");
    if (payment.chargeback) return fail("already_charged_back");
    if (payment.status !== "SALE" || isZeroAmount(payment.balance)) return fail("not_chargeable");
    const chargeback: ChargebackRecord = {
      chargebackId: this.#core.nextId("chargeback"),
      transactionId,
      mid,
      orderId: payment.orderId,
      currency: payment.currency,
      amount: payment.balance,
      reason,
      status: "REPORTED",
      chargebackDate: this.#core.stamp(now),
      deadline,
    };
    payment.chargeback = chargeback;
    this.#core.bump();
    return ok({ chargeback, payment });
  }

  /**
   * Ends a reported chargeback: DEDUCTION takes what is left of the disputed amount from the balance (refunds may
   * have lowered it meanwhile), RESOLVED takes nothing.
   */
  settleChargeback(
    mid: string,
    transactionId: string,
    outcome: Exclude<ChargebackStatus, "REPORTED">,
    now: Date,
  ): StoreResult<{ chargeback: ChargebackRecord; payment: PaymentRecord }, ChargebackError> {
    const payment = this.#payments.get(transactionId);
    if (!payment || payment.mid !== mid) return fail("transaction_not_found");
    const reported = payment.chargeback;
    if (reported?.status !== "REPORTED") return fail("no_open_chargeback");
    const at = this.#core.stamp(now);
    let chargeback: ChargebackRecord;
    if (outcome === "RESOLVED") {
      chargeback = { ...reported, status: outcome, resolvedDate: at };
    } else {
      const taken = compareAmounts(reported.amount, payment.balance) > 0 ? payment.balance : reported.amount;
      chargeback = { ...reported, status: outcome, amount: taken, deductedDate: at };
      payment.balance = subtractAmounts(payment.balance, taken);
    }
    payment.chargeback = chargeback;
    this.#core.bump();
    return ok({ chargeback, payment });
  }

  /** Manual acquiring: AUTH → SALE with captured_date. */
  capture(
    mid: string,
    transactionId: string,
    now: Date,
  ): StoreResult<PaymentRecord, "transaction_not_found" | "not_capturable"> {
    return this.#transition(mid, transactionId, "AUTH", "not_capturable", (payment) => {
      payment.status = "SALE";
      payment.capturedDate = this.#core.stamp(now);
    });
  }

  /** Deposit notice of a virtual account / convenience-store order: REGISTERED → SALE. */
  confirmDeposit(
    mid: string,
    transactionId: string,
  ): StoreResult<PaymentRecord, "transaction_not_found" | "not_registered"> {
    return this.#transition(mid, transactionId, "REGISTERED", "not_registered", (payment) => {
      payment.status = "SALE";
    });
  }

  /** Settlement confirmation of a SALE: stamps settled_date once; repeating it returns the same stamp. */
  settle(
    mid: string,
    transactionId: string,
    now: Date,
  ): StoreResult<PaymentRecord, "transaction_not_found" | "not_settleable"> {
    const payment = this.#payments.get(transactionId);
    if (payment?.mid === mid && payment.settledDate !== undefined) return ok(payment);
    return this.#transition(mid, transactionId, "SALE", "not_settleable", (target) => {
      target.settledDate = this.#core.stamp(now);
    });
  }

  #transition<E extends string>(
    mid: string,
    transactionId: string,
    from: PaymentStatus,
    refusal: E,
    change: (payment: MutablePayment) => void,
  ): StoreResult<PaymentRecord, "transaction_not_found" | E> {
    const payment = this.#payments.get(transactionId);
    if (!payment || payment.mid !== mid) return fail("transaction_not_found");
    if (payment.status !== from) return fail(refusal);
    change(payment);
    this.#core.bump();
    return ok(payment);
  }

  payments(): IterableIterator<PaymentRecord> {
    return this.#payments.values();
  }

  *orders(): IterableIterator<OrderRecord> {
    for (const orders of this.#orders.values()) yield* orders.values();
  }

  *refunds(): IterableIterator<RefundRecord> {
    for (const refunds of this.#refunds.values()) yield* refunds.values();
  }

  counts(): { orders: number; payments: number; refunds: number } {
    return { orders: this.#orderCount, payments: this.#payments.size, refunds: this.#refundCount };
  }
}
