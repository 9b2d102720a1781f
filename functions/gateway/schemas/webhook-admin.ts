import * as z from "zod";
import { SUCCESS_RESCODE } from "../result";
import { oneOrMany, resultEnvelope, url } from "./primitives";

// Webhook management API (seed 001) on {webhook_admin_url}: POST /v1/api/webhook/register, GET /v1/api/webhook/info.

/**
 * The only types the API accepts for registration. The seed's registration sample uses PAYOUT_REVIEW_COMPLETE, which
 * the type table does not list, so it is rejected here; CHARGEBACK is set up through the gateway's support only.
 */
export const REGISTRABLE_WEBHOOK_TYPES = [
  "PAYOUT_SUBMALL_REVIEW_COMPLETE",
  "PAYOUT_REMITTANCE_COMPLETE",
] as const;

/** The samples answer rescode "SUCCESS" here rather than the documented "0000": both mean success. */
export const WEBHOOK_ADMIN_SUCCESS_CODES = [SUCCESS_RESCODE, "SUCCESS"] as const;

export const webhookRegisterRequestSchema = z.strictObject({
  url,
  type: z.enum(REGISTRABLE_WEBHOOK_TYPES),
});
export type WebhookRegisterRequest = z.output<typeof webhookRegisterRequestSchema>;

/** The registered webhook; `type` lists the registered types (a single string is accepted and exposed as a list). */
export const webhookRegistrationSchema = z.object({ url: z.string(), type: oneOrMany(z.string()) });
export type WebhookRegistration = z.output<typeof webhookRegistrationSchema>;

/** `type` is the envelope's category (the value "webhook"), not a webhook type. */
const webhookEnvelope = resultEnvelope.extend({ type: z.string() });

export const webhookRegisterResponseSchema = webhookEnvelope.extend({ data: webhookRegistrationSchema });
export type WebhookRegisterResponse = z.output<typeof webhookRegisterResponseSchema>;

/** data is null when no webhook is configured (an absent data is read the same way). */
export const webhookInfoResponseSchema = webhookEnvelope.extend({
  data: webhookRegistrationSchema.nullish().transform((data) => data ?? null),
});
export type WebhookInfoResponse = z.output<typeof webhookInfoResponseSchema>;
