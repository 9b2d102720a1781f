import type { CardSummary } from "../state/card-summary";
import type { Ledger } from "../state/ledger";
import type { RecurringRecord } from "../state/recurring-store";
import { plusMonths } from "../time/gateway-calendar";
import type { AcquirerContext } from "./acquirer";
import { authorise } from "./card-payments";

/** The payment's `recurring` object as the charger reads it (api/payment-requests.ts validates the request). */
export interface RecurringPlan {
  /** Decimal, at most 10 digits with 2 decimals. */
  readonly recurring_amount: string;
  /** YYYYMMDD of the first charge. */
  readonly recurring_start_date: string;
  /** Months between charges, "1" to "10". */
  readonly recurring_interval: string;
  readonly recurring_noti_url?: string;
}

/**
 * What the gateway POSTs to recurring_noti_url after each charge. The seed does not show it; the sandbox sends the
 * charge's identity and result (status SALE, or NONE with the decline rescode).
 */
export interface RecurringNotice {
  readonly rescode: string;
  readonly resmsg: string;
  readonly recurring_id: string;
  readonly order_id: string;
  readonly transaction_id: string;
  readonly amount: string;
  readonly currency: string;
  readonly status: string;
  readonly transaction_date: string;
}

const toUtcDay = (yyyymmdd: string) =>
  new Date(
    Date.UTC(Number(yyyymmdd.slice(0, 4)), Number(yyyymmdd.slice(4, 6)) - 1, Number(yyyymmdd.slice(6, 8))),
  );

const toYyyymmdd = (day: Date) => day.toISOString().slice(0, 10).replaceAll("-", "");

/** YYYYMMDD of charge `index` (0 = the start date): whole intervals from the start, end-of-month clamped. */
export function chargeDate(startDate: string, intervalMonths: number, index: number): string {
  return toYyyymmdd(plusMonths(toUtcDay(startDate), index * intervalMonths));
}

/** Midnight of a YYYYMMDD date in the gateway's zone. */
function dayStart(ledger: Ledger, yyyymmdd: string): Date {
  return new Date(toUtcDay(yyyymmdd).getTime() - ledger.utcOffsetMinutes * 60_000);
}

/** The charge order ids the gateway makes: `<recurring_id>-<n>`, at most 20 + 1 + 5 characters. */
export function chargeOrderId(recurringId: string, index: number): string {
  return `${recurringId}-${index + 1}`;
}

/** Registers a plan (the first charge on its start date by the sandbox clock) after its first payment succeeded. */
export function registerRecurring(
  ctx: AcquirerContext,
  input: { mid: string; orderId: string; currency: string; card: CardSummary; plan: RecurringPlan },
): RecurringRecord {
  const recurring = ctx.ledger.recurring.create(
    input.mid,
    {
      orderId: input.orderId,
      currency: input.currency,
      amount: input.plan.recurring_amount,
      intervalMonths: Number(input.plan.recurring_interval),
      startDate: input.plan.recurring_start_date,
      notiUrl: input.plan.recurring_noti_url,
      card: input.card,
    },
    ctx.clock.now(),
  );
  scheduleCharge(ctx, recurring, 0);
  return recurring;
}

function scheduleCharge(ctx: AcquirerContext, recurring: RecurringRecord, index: number): void {
  const date = chargeDate(recurring.startDate, recurring.intervalMonths, index);
  ctx.scheduler.schedule(
    dayStart(ctx.ledger, date),
    () => charge(ctx, recurring.mid, recurring.recurringId, index),
    `recurring ${recurring.recurringId}#${index + 1}`,
  );
}

/**
 * One charge of a plan, on the sandbox clock: nothing once the plan is deleted. Each charge is a new transaction on
 * a gateway-made order (a declining card records a failed one), then the next is scheduled and the merchant is told.
 */
async function charge(ctx: AcquirerContext, mid: string, recurringId: string, index: number): Promise<void> {
  const plan = ctx.ledger.recurring.find(mid, recurringId);
  if (plan?.status !== "active") return;
  const orderId = chargeOrderId(recurringId, index);
  const order = ctx.ledger.payments.createOrder(mid, orderId, ctx.clock.now());
  const notice = order.ok ? chargeOrder(ctx, plan, orderId) : undefined;
  ctx.ledger.recurring.recordCharge(
    mid,
    recurringId,
    chargeDate(plan.startDate, plan.intervalMonths, index + 1),
  );
  scheduleCharge(ctx, plan, index + 1);
  if (notice && plan.notiUrl !== undefined) await ctx.deliver.recurringNoti(plan.notiUrl, notice);
}

function chargeOrder(ctx: AcquirerContext, plan: RecurringRecord, orderId: string): RecurringNotice {
  const { payment } = authorise(ctx, {
    mid: plan.mid,
    orderId,
    transactionType: "RECURRING",
    capture: "SALE",
    currency: plan.currency,
    amount: plan.amount,
    source: { kind: "recurring", card: plan.card },
    payerAuthenticated: true,
    recurringId: plan.recurringId,
  });
  return {
    rescode: payment.rescode,
    resmsg: payment.resmsg,
    recurring_id: plan.recurringId,
    order_id: payment.orderId,
    transaction_id: payment.transactionId,
    amount: payment.amount,
    currency: payment.currency,
    status: payment.status,
    transaction_date: payment.transactionDate,
  };
}
