import * as z from "zod";
import { lazySchema } from "../../shared/lazy-schema";
import { subscriptionPeriod } from "./billing-period";
import {
  billingMode,
  type Discount,
  type Dunning,
  discountSchema,
  dunningSchema,
  maskedCardSchema,
  nextStepOf,
  type Plan,
  planSchema,
  type Subscription,
  subscriptionStatus,
} from "./model";
import { quantityOf } from "./plan-price";

// What a subscription shows of itself outside: the merchant API's answers and every event's `subscription` are this one
// view, built field by field, so nothing stored (token_id, customer, notify_token) reaches either unless it is declared.

const isoInstant = lazySchema(() => z.iso.datetime({ offset: true }));

export const planAmountSchema = lazySchema(() =>
  planSchema.shape.amount.describe(
    "Decimal string greater than 0, at most 99999999.99, with no more decimals than the currency has (none in KRW and JPY)",
  ),
);

/** A plan as the API takes it inline: nothing more than its amount, currency and interval. */
export const strictPlanSchema = lazySchema(() =>
  z.strictObject({
    amount: planAmountSchema,
    currency: planSchema.shape.currency,
    interval_months: planSchema.shape.interval_months,
  }),
);

/** A plan as the API shows it: the unit amount, the seats, and the catalog's price it came from. */
const planViewSchema = lazySchema(() =>
  z.strictObject({
    ...strictPlanSchema.shape,
    amount: planAmountSchema.describe(
      "The unit amount: each period charges it times `quantity` (less any discount). A decimal string greater than 0, at most 99999999.99, with no more decimals than the currency has (none in KRW and JPY)",
    ),
    quantity: planSchema.shape.quantity.unwrap().describe("Seats: 1 unless told."),
    price_id: z
      .string()
      .optional()
      .describe("The catalog's price (POST /v1/prices) the plan was taken from."),
    product: z.string().optional().describe("The price's product name."),
  }),
);

const billingPeriodView = lazySchema(() =>
  z
    .strictObject({ index: z.number().int().min(0), start: isoInstant, end: isoInstant })
    .describe(
      "The last paid period: access runs until `end`. Null before the first payment, and after a pause that outlasted it until the next payment.",
    ),
);

/** What can be done about a decline. */
export const nextStepSchema = lazySchema(() =>
  z
    .enum(["retry_later", "new_card", "authentication"])
    .describe(
      "What can be done: retry_later (the same card may pay later; dunning retries it), new_card (this card will not pay), authentication (the cardholder must confirm in the window).",
    ),
);

/** A coupon as applied to a subscription. */
export const discountViewSchema = lazySchema(() =>
  z.strictObject({
    coupon_id: z.string(),
    code: z.string().optional(),
    percent_off: z.number().optional().describe("Percent off each charge (0 < p ≤ 100)."),
    amount_off: z.string().optional().describe("An amount off each charge, in the plan's currency."),
    duration: discountSchema.shape.duration,
    charges_left: z
      .number()
      .int()
      .nullable()
      .describe("The period charges it still takes off, this one included; null: forever."),
  }),
);

/** A tax added on top of charges. */
export const addedTaxView = lazySchema(() =>
  z.strictObject({
    name: z.string(),
    percent: z.string().describe('Percent, up to 2 decimals ("20", "7.25").'),
  }),
);

export const subscriptionViewSchema = lazySchema(() =>
  z.strictObject({
    subscription_id: z.string(),
    status: subscriptionStatus,
    status_reason: z.string().optional(),
    billing: billingMode,
    external_id: z.string().nullable().describe("The customer's id in your system (customer.external_id)."),
    metadata: z.record(z.string(), z.string()),
    plan: planViewSchema,
    current_period: billingPeriodView.nullable(),
    next_charge_at: isoInstant
      .nullable()
      .describe("Null when nothing is due here (gateway-managed, canceled)."),
    card: z.strictObject(maskedCardSchema.shape).nullable(),
    dunning: z
      .strictObject({ ...dunningSchema.shape, next_step: nextStepSchema.optional() })
      .optional()
      .describe("Past due: the retries so far, and the last decline's reason and next step."),
    cancel_at: isoInstant
      .nullable()
      .describe("When a scheduled cancel takes effect (the paid period's end); null if none."),
    scheduled_plan: planViewSchema
      .nullable()
      .describe(
        "A plan change scheduled for the next renewal (POST …/adjust with at next_renewal); null if none.",
      ),
    discount: discountViewSchema
      .nullable()
      .describe("A coupon taking something off each period charge while it lasts; null if none."),
    tax_rate: addedTaxView
      .optional()
      .describe(
        "A tax added on top of each charge: your exclusive rate for the customer's country, taken at sign-up (README, Invoices). Absent when none is.",
      ),
    trial_end: isoInstant
      .nullable()
      .describe("When the free trial ends and the first period is charged; null without a trial."),
    resume_at: isoInstant
      .nullable()
      .describe("A paused subscription's automatic resume; null when paused until resumed, or not paused."),
    created_at: isoInstant,
  }),
);
export type SubscriptionView = z.output<typeof subscriptionViewSchema>;

const planView = (plan: Plan): z.output<typeof planViewSchema> => ({
  amount: plan.amount,
  currency: plan.currency,
  interval_months: plan.interval_months,
  quantity: quantityOf(plan),
  ...(plan.price_id === undefined ? {} : { price_id: plan.price_id }),
  ...(plan.product === undefined ? {} : { product: plan.product }),
});

/** A discount as stored, its percentage in percent. */
function discountView(discount: Discount): z.output<typeof discountViewSchema> {
  return {
    coupon_id: discount.coupon_id,
    ...(discount.code === undefined ? {} : { code: discount.code }),
    ...(discount.percent_off_bp === undefined ? {} : { percent_off: discount.percent_off_bp / 100 }),
    ...(discount.amount_off === undefined ? {} : { amount_off: discount.amount_off }),
    duration: discount.duration,
    charges_left: discount.charges_left ?? null,
  };
}

/** The dunning as stored, with what can be done about its last decline. */
function dunningView(dunning: Dunning): NonNullable<SubscriptionView["dunning"]> {
  const { decline_reason: reason } = dunning;
  return { ...dunning, ...(reason === undefined ? {} : { next_step: nextStepOf(reason) }) };
}

export function subscriptionView(subscription: Subscription): SubscriptionView {
  const { plan, period } = subscription;
  // `period` is the next period to charge: the last paid one is just below it (none runs when it ended before a
  // pause it resumed from).
  const paid = period === 0 ? undefined : subscriptionPeriod(subscription, period - 1);
  return {
    subscription_id: subscription.subscription_id,
    status: subscription.status,
    ...(subscription.status_reason === undefined ? {} : { status_reason: subscription.status_reason }),
    billing: subscription.billing_mode,
    external_id: subscription.customer.external_id ?? null,
    metadata: { ...subscription.metadata },
    plan: planView(plan),
    current_period: paid
      ? { index: paid.index, start: paid.start.toISOString(), end: paid.end.toISOString() }
      : null,
    next_charge_at: subscription.next_charge_at ?? null,
    card: subscription.card ? { first4: subscription.card.first4, last4: subscription.card.last4 } : null,
    ...(subscription.dunning === undefined ? {} : { dunning: dunningView(subscription.dunning) }),
    cancel_at: subscription.cancel_at ?? null,
    discount: subscription.discount === undefined ? null : discountView(subscription.discount),
    ...(subscription.tax_rate === undefined
      ? {}
      : { tax_rate: { name: subscription.tax_rate.name, percent: subscription.tax_rate.percent } }),
    trial_end: subscription.trial_end ?? null,
    resume_at: subscription.resume_at ?? null,
    scheduled_plan: subscription.scheduled_plan ? planView(subscription.scheduled_plan) : null,
    created_at: subscription.created_at,
  };
}
