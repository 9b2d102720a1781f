import * as z from "zod";
import { MAX_GATEWAY_PLAN_INTERVAL_MONTHS, MAX_INTERVAL_MONTHS } from "../core/base/billing-period";
import {
  amountFitsCurrency,
  type BillingMode,
  billingMode,
  customerSchema,
  externalIdSchema,
  metadataSchema,
  planSchema,
  subscriptionStatus,
  trialDaysSchema,
} from "../core/base/model";
import { totalProblem } from "../core/base/plan-price";
import { planAmountSchema, strictPlanSchema } from "../core/base/subscription-view";
import { ALL_EVENT_TYPES, webhookEventTypeSchema, webhookEventTypes } from "../core/ports/webhook-ports";
import { plaintextCard } from "../gateway/schemas/payments";
import { lang, text, url } from "../gateway/schemas/primitives";
import { lazySchema, lazyShape } from "../shared/lazy-schema";
import { couponReference } from "./coupon-schemas";
import { pageQueryShape } from "./page-query";
import { priceReference } from "./price-schemas";

// The merchant API (README, Merchant API): request bodies, path parameters and headers as the API accepts them (the
// views it answers with are in merchant-api-views.ts, the gateway's callbacks in gateway-callback-schemas.ts). Objects
// are strict both ways: an unknown request key is refused naming it, and a view can never carry a field it does not
// declare (no token_id, no customer data, never card number or CVC). Amounts are decimal strings, as on the gateway.

export const isoInstant = lazySchema(() => z.iso.datetime({ offset: true }));

const customer = lazySchema(() => z.strictObject(customerSchema.shape));
/** A sign-up's plan: with trial_days, a free trial comes first. */
const signupPlan = lazySchema(() =>
  z
    .strictObject({
      ...strictPlanSchema.shape,
      trial_days: trialDaysSchema
        .optional()
        .describe(
          "A free trial of this many days: the card is verified by the smallest charge, refunded at once, and the first period is charged when the trial ends.",
        ),
    })
    .superRefine(amountFitsCurrency),
);

/** Card data: in memory for one request only; never stored, logged, echoed in errors or returned. */
const card = lazySchema(() =>
  z
    .strictObject({
      number: plaintextCard.shape.card_number,
      expiry: plaintextCard.shape.expiry_date,
      cvc: plaintextCard.shape.cvc,
    })
    .describe("Card data, sent to the gateway encrypted and then forgotten: never stored or returned."),
);

/** How long a link or a payment window holds, in whole minutes: at most a day. */
const expiresInMinutes = lazySchema(() => z.number().int().min(1).max(1440));

/** A payment window's life (a checkout's, a new card's), as the merchant may shorten it. */
const windowExpiresInMinutes = lazySchema(() =>
  expiresInMinutes
    .optional()
    .describe(
      "How long the customer has to pay, 1 to 1440 minutes (default 1440, a day). Unpaid then, it expires (checkout.expired): nothing more can be paid, and a payment that still arrives is refunded in full.",
    ),
);

/** POST /v1/checkouts: a payment-window sign-up. */
const metadata = lazySchema(() =>
  metadataSchema.describe(
    "Your own string map (at most 20 keys of 40 characters, values of 500), in every view and event of the subscription.",
  ),
);

/** A plan the gateway charges itself keeps the gateway's interval limit; token billing takes any up to 36 months. */
function gatewayPlanInterval(
  body: { readonly billing: BillingMode; readonly plan: { readonly interval_months: number } },
  context: z.RefinementCtx,
) {
  if (body.billing === "recurring" && body.plan.interval_months > MAX_GATEWAY_PLAN_INTERVAL_MONTHS)
    context.addIssue({
      code: "custom",
      path: ["plan", "interval_months"],
      message: `must be at most ${MAX_GATEWAY_PLAN_INTERVAL_MONTHS} with billing "recurring" (the gateway's limit for the plans it charges); token billing takes 1 to ${MAX_INTERVAL_MONTHS}`,
    });
}

/** Seats: each period charges the plan's amount times this. */
const quantity = lazySchema(() =>
  planSchema.shape.quantity
    .unwrap()
    .optional()
    .describe("Seats, 1 to 10000 (default 1): each period charges the plan's amount times this."),
);

/** A sign-up's period total must remain an amount the gateway takes. */
function chargeableTotal(
  body: { readonly plan: { readonly amount: string }; readonly quantity?: number },
  context: z.RefinementCtx,
) {
  // Refinements run over fields that failed their own checks too: only a well-formed amount has a total.
  if (!planAmountSchema.safeParse(body.plan.amount).success) return;
  const message = totalProblem({ amount: body.plan.amount, quantity: body.quantity });
  if (message !== undefined) context.addIssue({ code: "custom", path: ["quantity"], message });
}

/**
 * The rules a sign-up's plan meets whichever way it signs up: written inline or a catalog price's, one of the two
 * (a price's own rules are checked when it is read).
 */
function signupRules(body: SignupShape, context: z.RefinementCtx) {
  const { plan } = body;
  if (plan === undefined && body.price === undefined) {
    context.addIssue({
      code: "custom",
      path: ["plan"],
      message: "is required, unless price names a catalog price",
    });
    return;
  }
  if (plan !== undefined && body.price !== undefined) {
    context.addIssue({ code: "custom", path: ["price"], message: "give plan or price, not both" });
    return;
  }
  if (plan === undefined) return;
  gatewayPlanInterval({ ...body, plan }, context);
  chargeableTotal({ ...body, plan }, context);
}
interface SignupShape {
  readonly billing: BillingMode;
  readonly plan?: { readonly amount: string; readonly interval_months: number };
  readonly price?: string;
  readonly quantity?: number;
}

/** What every sign-up names, whichever way it pays: who, what (a plan or a catalog price), the seats and a coupon. */
const signupFields = lazyShape(() => ({
  customer,
  metadata: metadata.optional(),
  plan: signupPlan.optional(),
  price: priceReference.optional(),
  quantity,
  coupon: couponReference.optional(),
}));

export const createCheckoutBody = lazySchema(() =>
  z
    .strictObject({
      ...signupFields(),
      billing: billingMode,
      return_url: url
        .optional()
        .describe(
          "Your page the customer's browser returns to from the window (your page then shows the outcome; a refused payment cancels the checkout). Without it the checkout is hosted: open checkout_url, our page shows the outcome and offers another try.",
        ),
      lang: lang.optional(),
      description: text(200)
        .optional()
        .describe("What the customer buys, shown on the hosted checkout page (e.g. the plan's name)."),
      success_url: url.optional().describe("Where the hosted checkout page leads the customer once paid."),
      cancel_url: url.optional().describe("Where the hosted checkout page leads a customer who gives up."),
      expires_in_minutes: windowExpiresInMinutes,
    })
    .superRefine(signupRules),
);
export type CreateCheckoutBody = z.output<typeof createCheckoutBody>;

/** POST /v1/subscriptions: a server-to-server sign-up; period 0 is charged at once. */
export const createSubscriptionBody = lazySchema(() =>
  z
    .strictObject({
      ...signupFields(),
      billing: billingMode.default("token"),
      card,
    })
    .superRefine(signupRules),
);
export type CreateSubscriptionBody = z.output<typeof createSubscriptionBody>;

/**
 * POST /v1/subscriptions/{id}/payment-method: a new card, paying what is owed or verified by a refunded charge — sent
 * here (non-ui payment) or typed by the customer in the payment window.
 */
export const updatePaymentMethodBody = lazySchema(() =>
  z
    .strictObject({
      card: card.optional(),
      window: z
        .strictObject({
          return_url: url.optional(),
          lang: lang.optional(),
          expires_in_minutes: windowExpiresInMinutes,
        })
        .optional()
        .describe(
          "Open a payment window instead: the answer's request_pay opens it, and its result completes the update.",
        ),
    })
    .refine((body) => (body.card === undefined) !== (body.window === undefined), {
      path: ["card"],
      message: "send either a card or a window",
    }),
);
export type UpdatePaymentMethodBody = z.output<typeof updatePaymentMethodBody>;

/** POST /v1/subscriptions/{id}: your own references, edited. */
export const updateSubscriptionBody = lazySchema(() =>
  z
    .strictObject({
      external_id: externalIdSchema
        .nullable()
        .optional()
        .describe("The customer's id in your system; null clears it."),
      metadata: metadata
        .optional()
        .describe("Merged key by key into the subscription's metadata; an empty value removes its key."),
    })
    .extend({
      cancel_at_period_end: z
        .literal(false)
        .optional()
        .describe("false undoes a cancel scheduled for the end of the paid period."),
      coupon: couponReference
        .nullable()
        .optional()
        .describe(
          "A coupon's id or code: its discount from the next period charge on, replacing any other; null removes the discount.",
        ),
    })
    .refine(
      (body) =>
        body.external_id !== undefined ||
        body.metadata !== undefined ||
        body.cancel_at_period_end !== undefined ||
        body.coupon !== undefined,
      { error: "must name external_id, metadata, cancel_at_period_end or coupon" },
    ),
);
export type UpdateSubscriptionBody = z.output<typeof updateSubscriptionBody>;

/** DELETE /v1/subscriptions/{id}: cancel now (no body), or at the end of the paid period. */
export const cancelSubscriptionBody = lazySchema(() =>
  z
    .strictObject({
      at_period_end: z
        .boolean()
        .optional()
        .describe(
          "true: access runs until the paid period ends, nothing more is charged, and it can be undone until then.",
        ),
      refund: z
        .enum(["none", "prorated", "full"])
        .default("none")
        .describe(
          "A cancel now gives back the last paid period's charge: none, its unused part (prorated to now), or all of it.",
        ),
    })
    .refine((body) => body.at_period_end !== true || body.refund === "none", {
      path: ["refund"],
      message: "a cancel at period end refunds nothing: the paid period runs out",
    }),
);
export type CancelSubscriptionBody = z.output<typeof cancelSubscriptionBody>;

/** POST /v1/subscriptions/{id}/pause: no charges until resumed, or until resume_at. */
export const pauseSubscriptionBody = lazySchema(() =>
  z.strictObject({
    resume_at: isoInstant
      .optional()
      .describe("Resume by itself then (the charge run does); omitted: paused until POST …/resume."),
  }),
);
export type PauseSubscriptionBody = z.output<typeof pauseSubscriptionBody>;

/** The body of a write that takes no fields: left out, or `{}`; any field is a 400 naming it. */
export const emptyBody = lazySchema(() =>
  z.strictObject({}).describe("No fields: the body may be left out, or sent as {}."),
);

/** POST /v1/subscriptions/{id}/adjust: a new unit amount, new seats, or both. */
export const adjustSubscriptionBody = lazySchema(() =>
  z
    .strictObject({
      amount: planAmountSchema.optional().describe("A new unit amount; omitted: unchanged."),
      quantity: quantity.describe(
        "New seats, 1 to 10000; omitted: unchanged. Fewer seats take effect at the next renewal unless at is now.",
      ),
      interval_months: planSchema.shape.interval_months
        .optional()
        .describe("A new interval, which always takes effect at the next renewal; omitted: unchanged."),
      proration: z
        .enum(["none", "charge_now", "refund_now"])
        .default("none")
        .describe(
          "charge_now: an upgrade made now pays the difference for the rest of the paid period at once (one ad hoc charge per Idempotency-Key); the plan changes once it is paid. refund_now: a decrease made now (fewer seats, a lower amount) gives the unused part of the difference back at once, as one refund of the paid period's charge per change (token billing).",
        ),
      at: z
        .enum(["now", "next_renewal"])
        .optional()
        .describe(
          "now: the new total from the next charge on. next_renewal: scheduled (scheduled_plan) until the next period is charged at it. Default: now, or next_renewal with a new interval or fewer seats (token billing) unless prorated.",
        ),
    })
    .refine((body) => body.proration === "none" || body.at !== "next_renewal", {
      path: ["proration"],
      message: "charge_now and refund_now prorate a change made now, not one scheduled for the next renewal",
    })
    .refine((body) => body.amount !== undefined || body.quantity !== undefined, {
      path: ["amount"],
      message: "give amount, quantity or both",
    }),
);
export type AdjustSubscriptionBody = z.output<typeof adjustSubscriptionBody>;

/** POST /v1/subscriptions/{id}/charges: an ad hoc REBILL of the stored token; the plan amount when omitted. */
export const createChargeBody = lazySchema(() => z.strictObject({ amount: planAmountSchema.optional() }));
export type CreateChargeBody = z.output<typeof createChargeBody>;

/** POST /v1/charges/{id}/refunds: the whole remaining balance when amount is omitted. */
export const createRefundBody = lazySchema(() =>
  z.strictObject({ amount: planAmountSchema.optional(), reason: text(200) }),
);
export type CreateRefundBody = z.output<typeof createRefundBody>;

/** POST /local/clock (local mode only): moves the shared clock by an ISO 8601 duration. */
export const localClockBody = lazySchema(() =>
  z.strictObject({
    advance: z
      .string()
      .regex(/^P(?!$)(?:\d+Y)?(?:\d+M)?(?:\d+W)?(?:\d+D)?(?:T(?=\d)(?:\d+H)?(?:\d+M)?(?:\d+S)?)?$/, {
        message: "must be an ISO 8601 duration such as P31D",
      }),
  }),
);

/** GET /v1/subscriptions: one page, filtered by status and/or the customer's external_id. */
export const listSubscriptionsQuery = lazySchema(() =>
  z.strictObject({
    status: subscriptionStatus.optional(),
    external_id: externalIdSchema.optional(),
    ...pageQueryShape(),
  }),
);
export type ListSubscriptionsQuery = z.output<typeof listSubscriptionsQuery>;

/** POST /v1/portal-sessions: a customer portal link for one subscription, or for every one of a customer's. */
export const createPortalSessionBody = lazySchema(() =>
  z
    .strictObject({
      subscription_id: z
        .string()
        .regex(/^[A-Za-z0-9_]{1,24}$/, "must be a subscription id")
        .optional()
        .describe("The one subscription the portal shows."),
      external_id: externalIdSchema
        .optional()
        .describe("Your id of the customer: the portal shows every subscription that carries it."),
      return_url: url.optional().describe("Where the portal's “Back” link leads (your app)."),
      lang: lang
        .optional()
        .describe("The portal's language (en, ko); the customer's browser decides otherwise."),
      expires_in_minutes: expiresInMinutes
        .optional()
        .describe("How long the link opens the portal, 1 to 1440 minutes (default 15)."),
    })
    .superRefine((body, context) => {
      if ((body.subscription_id === undefined) === (body.external_id === undefined))
        context.addIssue({
          code: "custom",
          path: ["subscription_id"],
          message: "give exactly one of subscription_id and external_id",
        });
    }),
);
export type CreatePortalSessionBody = z.output<typeof createPortalSessionBody>;

export const portalSessionView = lazySchema(() =>
  z.strictObject({
    url: z
      .url()
      .describe("The customer's portal: send the customer there (a signed link; never log or share it)."),
    expires_at: z.iso.datetime().describe("Until when the link opens the portal."),
  }),
);

/** POST /v1/webhook-endpoints: where our signed webhooks go, and which events. */
export const createWebhookEndpointBody = lazySchema(() =>
  z.strictObject({
    url: z
      .string()
      .min(1, "is required")
      .max(2048, "must be at most 2048 characters")
      .pipe(z.url({ protocol: /^https?$/, error: "must be an https URL" }))
      .describe(
        "Where every subscribed event is POSTed: https, resolving to public addresses only (checked now and at every send).",
      ),
    events: z
      .array(webhookEventTypeSchema)
      .min(1, "must name at least one event type")
      .max(webhookEventTypes().length, `must name at most ${webhookEventTypes().length} event types`)
      .refine((types) => !types.includes(ALL_EVENT_TYPES) || types.length === 1, {
        error: `"${ALL_EVENT_TYPES}" stands alone`,
      })
      .refine((types) => new Set(types).size === types.length, { error: "must not repeat an event type" })
      .default([ALL_EVENT_TYPES])
      .describe(`The billing event types to receive, or ["${ALL_EVENT_TYPES}"] (the default) for every one.`),
    description: text(200).optional().describe("Your note on what the endpoint is for."),
  }),
);
export type CreateWebhookEndpointBody = z.output<typeof createWebhookEndpointBody>;

export const webhookEndpointIdParams = lazySchema(() =>
  z.strictObject({
    id: z.string().regex(/^we_[0-9a-z]{16}$/, "must be a webhook endpoint id"),
  }),
);

/** Subscription ids are short (`<id>-<period>-<attempt>` is a 30-character order_id). */
export const subscriptionIdParams = lazySchema(() =>
  z.strictObject({
    id: z.string().regex(/^[A-Za-z0-9_]{1,24}$/, "must be a subscription id"),
  }),
);

/** A charge id is the charge's order_id: `<subscription id>-<period>-<attempt>`. */
export const chargeIdParams = lazySchema(() =>
  z.strictObject({
    id: z
      .string()
      .max(30, "must be a charge id")
      .regex(/^[A-Za-z0-9_]{1,24}-\d{1,6}-\d{1,4}$/, "must be a charge id"),
  }),
);

/** POSTs with the same key and body answer the first result; the same key with another body is a conflict. */
export const IDEMPOTENCY_KEY_HEADER = "Idempotency-Key";
export const idempotencyKey = lazySchema(() =>
  z
    .string()
    .regex(/^[\x21-\x7e]{1,255}$/, "must be 1 to 255 visible ASCII characters")
    .describe("Repeating a POST with the same key and body answers the first result."),
);
