import * as z from "zod";

// Partner API (seed 002). Unlike the payment API it is not all strings: isActive is a boolean, eventTypes an array.

export const PARTNER_SUCCESS_CODE = "CMN_0000";
/** Expired or invalid access token. */
export const PARTNER_TOKEN_REJECTED_CODE = "AUTH_3001";

/** ISO 8601 date-time; a missing offset is tolerated on input (lenient response parsing). */
const isoDateTime = z.iso.datetime({ offset: true, local: true });

/**
 * ISO 8601 instant, normalised to UTC `…Z`. A value without offset is read as UTC (the seed does not say which zone
 * it would be), so that every reader of a stored token computes the same expiry.
 */
const isoInstant = isoDateTime.transform((value) =>
  new Date(/(?:Z|[+-]\d{2}:\d{2})$/i.test(value) ? value : `${value}Z`).toISOString(),
);

/** Every partner response: `code` is CMN_0000 on success; `data` carries the payload. */
export const partnerEnvelope = z.object({
  code: z.string(),
  message: z.string().optional(),
  data: z.unknown().optional(),
});
export type PartnerEnvelope = z.infer<typeof partnerEnvelope>;

/** The envelope with a typed payload. */
export const partnerResponse = <T extends z.ZodType>(data: T) => partnerEnvelope.extend({ data });

// Three base64url segments; the header is not decoded, so any `typ` (JWT, at+jwt) is accepted.
const jwt = z.string().regex(/^[\w-]+\.[\w-]+\.[\w-]*$/, "must be a JWT");

export const partnerToken = z.object({ token: jwt, expiredAt: isoInstant });
export type PartnerToken = z.output<typeof partnerToken>;

export const webhookSubscription = z.object({
  id: z.string(),
  endpointUrl: z.string(),
  eventTypes: z.array(z.string()),
  isActive: z.boolean(),
  createdAt: isoDateTime,
});
export type WebhookSubscription = z.output<typeof webhookSubscription>;

// No length limit is documented for the partner API, unlike the payment API's 255.
const endpointUrl = z.url({ protocol: /^https?$/, error: "must be an http(s) URL" });
const eventTypes = z.array(z.string().min(1, "is required")).min(1, "must name at least one event type");

export const createWebhookRequest = z.object({ endpointUrl, eventTypes });
export type CreateWebhookRequest = z.input<typeof createWebhookRequest>;

export const updateWebhookRequest = z.object({ endpointUrl, eventTypes, isActive: z.boolean().optional() });
export type UpdateWebhookRequest = z.input<typeof updateWebhookRequest>;

// "." and ".." survive URL encoding and would be resolved as dot segments, addressing another resource.
const pathParam = z
  .string()
  .min(1, "is required")
  .refine((value) => value !== "." && value !== "..", "must not be a dot segment");

/** {merchantId} and {publicId} of the webhook paths. */
export const merchantPath = z.object({ merchantId: pathParam });
export const subscriptionPath = merchantPath.extend({ publicId: pathParam });

export const tokenResponse = partnerResponse(partnerToken);
export const webhookSubscriptionResponse = partnerResponse(webhookSubscription);
/** An absent or null list is read as no subscriptions. */
export const webhookListResponse = partnerResponse(
  z.preprocess((value) => value ?? [], z.array(webhookSubscription)),
);
export const deleteWebhookResponse = partnerEnvelope;

/** What the partner API posts to a subscribed endpoint (PAYMENT_COMPLETED). */
export const partnerWebhookEvent = z.object({
  id: z.string().optional(),
  eventType: z.string(),
  timestamp: isoDateTime,
  data: z.object({
    invoice: z
      .object({
        invoiceId: z.string().optional(),
        invoiceNumber: z.string().optional(),
        status: z.string().optional(),
      })
      .optional(),
    payment: z
      .object({
        transactionId: z.string().optional(),
        amount: z.string().optional(),
        currency: z.string().optional(),
        rescode: z.string().optional(),
        resmsg: z.string().optional(),
      })
      .optional(),
  }),
});
export type PartnerWebhookEvent = z.output<typeof partnerWebhookEvent>;
