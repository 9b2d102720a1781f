import * as z from "zod";
import { lazySchema } from "../../shared/lazy-schema";
import { MAX_INTERVAL_MONTHS, MIN_INTERVAL_MONTHS } from "./billing-period";
import { amountProblem, isCurrencyCode } from "./money";

// The billing records the core reads and writes. Card data never appears here: a token_id and the masked card only.

const isoInstant = lazySchema(() => z.iso.datetime({ offset: true }));

export const MIN_QUANTITY = 1;
/** Seats on one subscription: enough for any team, small enough that a period's total stays an amount. */
export const MAX_QUANTITY = 10_000;
const decimal = lazySchema(() =>
  z
    .string()
    .regex(
      /^(?:0|[1-9]\d{0,7})(?:\.\d{1,2})?$/,
      "must be a decimal amount of at most 10 digits, at most 2 of them decimals (99999999.99)",
    ),
);

export const planSchema = lazySchema(() =>
  z.object({
    amount: decimal.refine((value) => Number(value) > 0, "must be greater than 0"),
    currency: z
      .string()
      .regex(/^[A-Z]{3}$/, "must be a 3-letter currency code")
      .refine(isCurrencyCode, "must be an ISO 4217 currency code"),
    interval_months: z.number().int().min(MIN_INTERVAL_MONTHS).max(MAX_INTERVAL_MONTHS),
    /** Seats: each period charges `amount` (the unit amount) times this. Absent: one. */
    quantity: z.number().int().min(MIN_QUANTITY).max(MAX_QUANTITY).optional(),
    /** The catalog's price the plan was taken from (absent: a plan written inline). */
    price_id: z.string().optional(),
    /** The name of what is sold: the price's product, shown on pages and sent as the gateway's product line. */
    product: z.string().max(100).optional(),
  }),
);
export type Plan = z.infer<typeof planSchema>;

/** A plan's amount must fit its currency's minor unit (KRW and JPY: whole numbers): the issue names `amount`. */
export function amountFitsCurrency(
  plan: { readonly amount: string; readonly currency: string },
  context: z.RefinementCtx,
) {
  const message = amountProblem(plan.amount, plan.currency);
  if (message !== undefined) context.addIssue({ code: "custom", path: ["amount"], message });
}

/** A sign-up's free trial: 1 to 730 days before the first period is charged. */
export const trialDaysSchema = lazySchema(() => z.number().int().min(1).max(730));

/** The SaaS's own id of the customer: subscriptions are listed by it, and the gateway gets it in other_param. */
export const externalIdSchema = lazySchema(() =>
  z.string().regex(/^[\x21-\x7e]{1,100}$/, "must be 1 to 100 visible ASCII characters"),
);

/** The languages we write to customers in (pages and mails). */
export const customerLangSchema = lazySchema(() => z.enum(["en", "ko"]));
export type CustomerLang = z.infer<typeof customerLangSchema>;

/** Where a business customer is billed: printed on its invoices, and its country picks their tax rate. */
export const billingAddressSchema = lazySchema(() =>
  z.object({
    line1: z.string().min(1).max(200),
    line2: z.string().min(1).max(200).optional(),
    city: z.string().min(1).max(100),
    postal_code: z.string().min(1).max(20).optional(),
    region: z.string().min(1).max(100).optional(),
    country: z.string().regex(/^[A-Z]{2}$/, "must be an ISO 3166-1 alpha-2 country code (e.g. KR)"),
  }),
);
export type BillingAddress = z.infer<typeof billingAddressSchema>;

export const customerSchema = lazySchema(() =>
  z.object({
    name: z.string().min(1).max(100),
    email: z.email().max(254),
    phone: z.string().max(30).optional(),
    /** Printed on the customer's invoices (with tax_id), as a business customer's bookkeeping needs them. */
    address: billingAddressSchema.optional(),
    tax_id: z.string().min(1).max(50).optional(),
    external_id: externalIdSchema.optional(),
    /** The language of the customer's mails (and pages, unless asked otherwise); a checkout's lang sets it. */
    lang: customerLangSchema.optional(),
  }),
);

export const METADATA_MAX_KEYS = 20;

/** The SaaS's own small string map, carried in every view and event of the subscription (as Stripe's metadata). */
export const metadataSchema = lazySchema(() =>
  z
    .record(
      z.string().regex(/^[A-Za-z0-9_.:-]{1,40}$/, "keys must be 1 to 40 letters, digits or _ . : -"),
      z.string().max(500, "values must be at most 500 characters"),
    )
    .refine(
      (map) => Object.keys(map).length <= METADATA_MAX_KEYS,
      `must have at most ${METADATA_MAX_KEYS} keys`,
    ),
);
export type Metadata = z.infer<typeof metadataSchema>;
export type Customer = z.infer<typeof customerSchema>;

/**
 * A coupon as applied to a subscription: its terms are copied here when it is applied, so a charge reads nothing more.
 * `charges_left` counts the period charges it still takes off (once: 1; repeating: its duration_in_months at first);
 * absent: forever.
 */
export const discountSchema = lazySchema(() =>
  z.object({
    coupon_id: z.string(),
    code: z.string().optional(),
    /** Basis points off (1 to 10000: 0.01 % to 100 %). */
    percent_off_bp: z.number().int().min(1).max(10_000).optional(),
    /** An amount off each charge, in the plan's currency. */
    amount_off: decimal.optional(),
    duration: z.enum(["once", "repeating", "forever"]),
    charges_left: z.number().int().min(1).optional(),
    applied_at: isoInstant,
  }),
);
export type Discount = z.infer<typeof discountSchema>;

/**
 * A tax added on top of every charge (README, Invoices: exclusive rates): the merchant's rate for the buyer's country,
 * taken when the subscription signs up, so what it charges never changes under it.
 */
export const addedTaxRateSchema = lazySchema(() => z.object({ name: z.string(), percent: z.string() }));
export type AddedTaxRate = z.infer<typeof addedTaxRateSchema>;

export const subscriptionStatus = lazySchema(() =>
  z.enum(["pending", "trialing", "active", "past_due", "paused", "canceled"]),
);
export type SubscriptionStatus = z.infer<typeof subscriptionStatus>;

/** token: we re-bill the stored token_id; recurring: the gateway charges a registered recurring plan itself. */
export const billingMode = lazySchema(() => z.enum(["token", "recurring"]));
export type BillingMode = z.infer<typeof billingMode>;

export const maskedCardSchema = lazySchema(() =>
  z.object({
    first4: z.string().regex(/^\d{4}$/),
    last4: z.string().regex(/^\d{4}$/),
  }),
);
export type MaskedCard = z.infer<typeof maskedCardSchema>;

/**
 * Why a payment was declined, in words a customer can act on (the gateway adapter reads them from its codes): each
 * leads to one next step (nextStepOf).
 */
export const declineReasonSchema = lazySchema(() =>
  z.enum([
    "insufficient_funds",
    "card_declined",
    "limit_exceeded",
    "try_again_later",
    "expired_card",
    "card_unusable",
    "authentication_failed",
  ]),
);
export type DeclineReason = z.infer<typeof declineReasonSchema>;

/** What the customer (or the merchant) can do about a decline. */
export type NextStep = "retry_later" | "new_card" | "authentication";

const NEXT_STEPS: Readonly<Record<DeclineReason, NextStep>> = {
  insufficient_funds: "retry_later",
  card_declined: "retry_later",
  limit_exceeded: "retry_later",
  try_again_later: "retry_later",
  expired_card: "new_card",
  card_unusable: "new_card",
  authentication_failed: "authentication",
};

export const nextStepOf = (reason: DeclineReason): NextStep => NEXT_STEPS[reason];

export const dunningSchema = lazySchema(() =>
  z.object({
    /** Declines so far in this period (1 after the first). */
    step: z.number().int().min(1),
    reason: z.string(),
    rescode: z.string().optional(),
    /** The last decline's reason in the customer's terms (what the next retry, or a new card, must overcome). */
    decline_reason: declineReasonSchema.optional(),
    since: isoInstant,
  }),
);
export type Dunning = z.infer<typeof dunningSchema>;

export const subscriptionSchema = lazySchema(() =>
  z.object({
    subscription_id: z.string(),
    status: subscriptionStatus,
    billing_mode: billingMode,
    customer: customerSchema,
    metadata: metadataSchema.optional(),
    plan: planSchema,
    /** A plan change scheduled for the next renewal: that period is charged at its amount, then it becomes `plan`. */
    scheduled_plan: planSchema.optional(),
    /**
     * An upgrade being paid for at once (proration charge_now): it becomes `plan` when its proration line
     * (`pending_plan_order`) is paid, and no other plan change is made meanwhile.
     */
    pending_plan: planSchema.optional(),
    pending_plan_order: z.string().optional(),
    /**
     * A decrease made now with proration refund_now, written with the plan it credits: the refund of the unused part is
     * sent from here (by the request, or the attempt sweep once `lease_until` passed) and cleared once it is claimed.
     */
    pending_credit: z
      .object({
        refund_id: z.string(),
        /** The charge it gives part of back: the last paid period's. */
        order_id: z.string(),
        amount: decimal,
        /** The difference for a whole period whose unused part `amount` is. */
        prorated_from: decimal,
        lease_until: isoInstant,
      })
      .optional(),
    /** Start of period `anchor_period`: the sign-up instant, or a resume's, every later period is measured from. */
    anchor_at: isoInstant,
    /** The period that starts at anchor_at: absent (0) until a resume after a pause re-anchors the schedule. */
    anchor_period: z.number().int().min(0).optional(),
    /** The next period to charge; every period below it is paid. */
    period: z.number().int().min(0),
    /** The next attempt number for `period` (each attempt has its own order_id). */
    attempt: z.number().int().min(0),
    /** When the charge run should pick it up; absent when nothing is due (canceled, gateway-managed). */
    next_charge_at: isoInstant.optional(),
    token_id: z.string().optional(),
    card: maskedCardSchema.optional(),
    recurring_id: z.string().optional(),
    /**
     * A gateway-managed plan's secret in the recurring_noti_url we register: a notice without it is refused before
     * anything is read or asked. Never shown in a view or an event.
     */
    notify_token: z.string().optional(),
    dunning: dunningSchema.optional(),
    /** A coupon taking something off each period charge while it lasts. */
    discount: discountSchema.optional(),
    /** A tax added on top of each charge. */
    tax_rate: addedTaxRateSchema.optional(),
    status_reason: z.string().optional(),
    /** A cancel scheduled for the end of the paid period: nothing more is charged, access runs until then. */
    cancel_at: isoInstant.optional(),
    /** A sign-up's free trial ends then: period 1 starts (and is charged) at that instant. */
    trial_end: isoInstant.optional(),
    /** Paused until then (the charge run resumes it); absent while paused until resumed. */
    resume_at: isoInstant.optional(),
    /**
     * A checkout whose window returns to our own page (hosted): a refused payment leaves it pending for another try
     * from that page. What the page shows and where it leads the customer afterwards.
     */
    hosted_checkout: z
      .object({
        description: z.string().optional(),
        success_url: z.string().optional(),
        cancel_url: z.string().optional(),
        lang: z.string().optional(),
      })
      .optional(),
    /**
     * A checkout's (POST /v1/checkouts) end: a sign-up still pending then is closed by the attempt sweep (canceled,
     * checkout_expired), and a payment that arrives after it is refunded. Its hosted page's link expires with it.
     */
    checkout_expires_at: isoInstant.optional(),
    /**
     * Counts the subscription's writes: each expects the revision it read and stores the next, so no two writes leave
     * one revision. Its events' `sequence` is built on it (events.ts). Absent (0) on one written before revisions.
     */
    revision: z.number().int().min(1).optional(),
    created_at: isoInstant,
    updated_at: isoInstant,
  }),
);
export type Subscription = z.infer<typeof subscriptionSchema>;
export type PendingCredit = NonNullable<Subscription["pending_credit"]>;

/** The status_reason of a checkout the sweep closed because its window expired unpaid (checkout.expired). */
export const CHECKOUT_EXPIRED = "checkout_expired";

/** Whether a window that ends at `expiresAt` (none: a checkout made before windows expired) has ended at `now`. */
export const hasExpired = (expiresAt: string | undefined, now: Date): boolean =>
  expiresAt !== undefined && Date.parse(expiresAt) <= now.getTime();

/** The plan the current period is charged at: a change scheduled for this renewal, or the plan. */
export const planDue = (subscription: Subscription): Plan => subscription.scheduled_plan ?? subscription.plan;

/**
 * One charge attempt: the audited ledger line and, while open, the claim on its period.
 * - pending: claimed; the gateway call is about to happen or in flight until `lease_until`;
 * - retry: the gateway refused before accepting it (unavailable): the same order_id may be sent again;
 * - unknown: the call may have charged; resolved by retrieve once `lease_until` (the in-flight window) has passed;
 * - succeeded / declined / failed (our request was invalid) / voided (retrieve found no transaction): closed.
 */
export const attemptStatus = lazySchema(() =>
  z.enum(["pending", "retry", "unknown", "succeeded", "declined", "failed", "voided"]),
);
export type AttemptStatus = z.infer<typeof attemptStatus>;

export const OPEN_ATTEMPT_STATUSES: readonly AttemptStatus[] = ["pending", "retry", "unknown"];

/** One status of a chargeback as the gateway reported it, and when its webhook reached us. */
export const disputeStatusEntrySchema = lazySchema(() =>
  z.object({
    status: z.string().min(1),
    received_at: isoInstant,
  }),
);

/**
 * A chargeback of a charge: the gateway sends its CHARGEBACK webhook again whenever the chargeback's status changes
 * (reported, then deducted or resolved). `status` is the furthest status reported; `history` every status once, in
 * the order received; `revision` counts the changes (the compare-and-set of the next one).
 */
export const disputeSchema = lazySchema(() =>
  z.object({
    status: z.string().min(1),
    reason: z.string().optional(),
    /** The gateway's dates as it sends them (YYYYMMDD, Korea time): reported, answer due, resolved, deducted. */
    report_date: z.string().optional(),
    deadline: z.string().optional(),
    resolve_date: z.string().optional(),
    deduct_date: z.string().optional(),
    history: z.array(disputeStatusEntrySchema).min(1),
    revision: z.number().int().min(1),
  }),
);
export type Dispute = z.infer<typeof disputeSchema>;

/** Why no retry of a refusal can succeed; each is also the status_reason of the subscription it leaves past_due. */
export const deadEndSchema = lazySchema(() => z.enum(["token_expired", "token_revoked", "card_required"]));
export type DeadEnd = z.infer<typeof deadEndSchema>;

/**
 * What the customer's card was billed when the gateway converted the charge into the card's currency (dynamic currency
 * conversion): that currency, the amount in it, and the rate of one unit of the charge's currency. The merchant is
 * still paid the charge's own amount.
 */
export const billedSchema = lazySchema(() =>
  z.object({
    currency: z.string(),
    amount: z.string(),
    rate: z.string().optional(),
  }),
);
export type Billed = z.infer<typeof billedSchema>;

export const chargeAttemptSchema = lazySchema(() =>
  z.object({
    subscription_id: z.string(),
    period: z.number().int().min(0),
    attempt: z.number().int().min(0),
    order_id: z.string().max(30),
    amount: decimal,
    currency: z.string(),
    /** A discounted line: the amount before the discount, the discount, and the coupon it came from. */
    amount_before_discount: decimal.optional(),
    discount: decimal.optional(),
    coupon_id: z.string().optional(),
    /** The part of `amount` that is a tax added on top (the subscription's tax_rate): the rest is the net. */
    tax: addedTaxRateSchema.extend({ amount: decimal }).optional(),
    status: attemptStatus,
    /** Open attempts only: until when the claim holds (pending) or when to resolve (unknown). */
    lease_until: isoInstant.optional(),
    rescode: z.string().optional(),
    resmsg: z.string().optional(),
    /** The gateway's named reason of a refusal (EXPIRED_CARD, STOLEN_OR_LOST_CARD, …). */
    errcode: z.string().optional(),
    /** A refusal no retry can mend (a dead token or card): the subscription waits for a new card. */
    dead_end: deadEndSchema.optional(),
    /** A decline's reason in the customer's terms. */
    decline_reason: declineReasonSchema.optional(),
    transaction_id: z.string().optional(),
    /** The card was billed in another currency (DCC), as the gateway's answer said. */
    billed: billedSchema.optional(),
    /** The token a payment with a card issued (a card update's line): what a repeated request stores again. */
    token_id: z.string().optional(),
    /** The gateway-managed plan a card update's window registered. */
    recurring_id: z.string().optional(),
    /**
     * payment_method: a new card's payment in a payment window; its result completes a card update, not a sign-up.
     * proration: an upgrade's prorated difference; once paid, the subscription's pending plan becomes its plan.
     */
    purpose: z.enum(["payment_method", "proration"]).optional(),
    /** The smallest charge that verifies a card (a trial, a new card): refunded in full once paid, whoever settles it. */
    verification: z.literal(true).optional(),
    /**
     * Refunded or being refunded: the sum of `refunds`. The refundable balance is amount − refunded_amount, so a refund
     * holds its amount here before the gateway is called and concurrent refunds can never exceed the charge.
     */
    refunded_amount: decimal.optional(),
    /**
     * Every refund that held part of the balance, by refund_id: its amount while it is held or made, "0" once it was
     * refused (its amount given back to the balance). An id is held at most once: whoever holds it sends it.
     */
    refunds: z.record(z.string(), decimal).optional(),
    /** Counts the changes of `refunds`: the compare-and-set of the next one. */
    refund_revision: z.number().int().min(1).optional(),
    /** Charged back (CHARGEBACK webhook); `dispute` holds the chargeback's status and history. */
    disputed: z.boolean().optional(),
    dispute: disputeSchema.optional(),
    /**
     * The invoice the paid line was finalized as (README, Invoices): written by the write that closes it succeeded, or
     * earlier by the next invoice's numbering when this line's close had not landed yet; never changed once written.
     */
    invoice_number: z.string().optional(),
    /** Ad hoc lines: a digest of the request that made the line, so that repeating the request finds it. */
    request_key: z.string().max(64).optional(),
    /**
     * A payment window's line: how a page opens the window prepared for it (never card data), and until when
     * (`expires_at`, the line's lease as claimed: the sweep may postpone the lease, never the window's end).
     */
    window: z
      .object({
        fgkey: z.string(),
        sdk_url: z.string(),
        request_pay: z.record(z.string(), z.unknown()),
        expires_at: isoInstant.optional(),
      })
      .optional(),
    created_at: isoInstant,
    updated_at: isoInstant,
  }),
);
export type ChargeAttempt = z.infer<typeof chargeAttemptSchema>;

/**
 * A paid line as the ledger index holds it (billing-table.ts): what reconciliation and the settlements compare with
 * the gateway's records, and no more, so that the writes that change anything else of the line leave the index be.
 */
export const ledgerChargeSchema = lazySchema(() =>
  chargeAttemptSchema.pick({
    subscription_id: true,
    period: true,
    attempt: true,
    order_id: true,
    amount: true,
    currency: true,
    status: true,
    transaction_id: true,
    disputed: true,
  }),
);
export type LedgerCharge = z.infer<typeof ledgerChargeSchema>;

export interface AttemptKey {
  readonly subscription_id: string;
  readonly period: number;
  readonly attempt: number;
}

/**
 * A gateway-issued token in the vault: what identifies the card to a person, never the card itself. deleted: we
 * deleted it at the gateway once its subscription ended.
 */
export const tokenStatus = lazySchema(() => z.enum(["active", "expired", "revoked", "deleted"]));
export const tokenRecordSchema = lazySchema(() =>
  z.object({
    token_id: z.string(),
    subscription_id: z.string(),
    card: maskedCardSchema,
    /** YYYYMM */
    expiry: z
      .string()
      .regex(/^\d{4}(0[1-9]|1[0-2])$/)
      .optional(),
    status: tokenStatus,
    created_at: isoInstant,
    updated_at: isoInstant,
  }),
);
export type TokenRecord = z.infer<typeof tokenRecordSchema>;

/**
 * A refund of one charge (cancel F or P at the gateway), made at most once by its refund_id:
 * - pending: claimed; its amount is held on the charge and the call is about to happen or in flight until lease_until;
 * - unknown: the call may have refunded; settled by retrieve (key_field refund_id) once lease_until has passed;
 * - succeeded / failed: closed (a failed refund's hold is given back to the balance).
 */
export const refundStatus = lazySchema(() => z.enum(["pending", "succeeded", "failed", "unknown"]));
export const OPEN_REFUND_STATUSES: readonly RefundStatus[] = ["pending", "unknown"];
export type RefundStatus = z.infer<typeof refundStatus>;
export const refundRecordSchema = lazySchema(() =>
  z.object({
    refund_id: z.string().max(30),
    subscription_id: z.string(),
    /** The charge refunded: its order_id and ledger key. */
    order_id: z.string(),
    period: z.number().int().min(0),
    attempt: z.number().int().min(0),
    amount: decimal,
    /**
     * The charge's whole remaining balance was asked for: held later than asked (its request died first), it gives back
     * what is left then, and `amount` is corrected before it is sent.
     */
    whole_balance: z.literal(true).optional(),
    /** A plan credit: the difference for a whole period whose unused part it gives back (what a cancel counts). */
    prorated_from: decimal.optional(),
    currency: z.string(),
    reason: z.string().max(200),
    status: refundStatus,
    /** Open refunds only: until when the call may be in flight; the attempt sweep settles it after that. */
    lease_until: isoInstant.optional(),
    refund_transaction_id: z.string().optional(),
    /** The credit note the succeeded refund was recorded as; written like a charge's invoice_number. */
    credit_note_number: z.string().optional(),
    rescode: z.string().optional(),
    resmsg: z.string().optional(),
    created_at: isoInstant,
    updated_at: isoInstant,
  }),
);
export type RefundRecord = z.infer<typeof refundRecordSchema>;

/** A succeeded refund as the ledger index holds it (as ledgerChargeSchema). */
export const ledgerRefundSchema = lazySchema(() =>
  refundRecordSchema.pick({
    refund_id: true,
    subscription_id: true,
    order_id: true,
    period: true,
    attempt: true,
    amount: true,
    currency: true,
    status: true,
    refund_transaction_id: true,
  }),
);
export type LedgerRefund = z.infer<typeof ledgerRefundSchema>;
