import * as z from "zod";
import { lazySchema } from "../shared/lazy-schema";
import { subscriptionIdParams } from "./merchant-api-schemas";

// The gateway's callbacks to us (authenticated each its own way) and our answers, as the OpenAPI document publishes
// them; inbound/ reads and answers them.

/** The window result on status_url, passed to verify exactly as received. */
export const windowResultParams = lazySchema(() =>
  z
    .record(z.string(), z.string())
    .describe("The window result (verify fields) exactly as the gateway sent it; verified before use."),
);

/** A signed webhook or partner event: the raw body is what the signature covers. */
export const webhookPayload = lazySchema(() =>
  z.looseObject({}).describe("The event as the gateway sent it."),
);

/** recurring_noti_url's query: our subscription, and its plan's secret (compared in constant time). */
export const recurringNoticeQuery = lazySchema(() =>
  z.strictObject({
    subscription_id: subscriptionIdParams.shape.id,
    token: z.string().min(1).describe("The plan's secret, as registered in the recurring_noti_url."),
  }),
);

/** The reply the gateway expects before it stops re-sending. */
export const webhookAck = lazySchema(() =>
  z.strictObject({ rescode: z.literal("0000"), resmsg: z.string() }),
);

/** A callback refused in the gateway's own words: rescode EC00 (invalid parameter) or XXXX (signature_fail). */
export const gatewayRefusal = lazySchema(() =>
  z
    .strictObject({ rescode: z.string().regex(/^(?!0000$)[A-Z0-9]{4}$/), resmsg: z.string() })
    .describe("A refusal in the gateway's dialect: EC00 (invalid parameter), XXXX (signature_fail)."),
);

/** The partner API's reply to an event: received, or refused as unreadable. */
export const partnerReply = lazySchema(() =>
  z
    .strictObject({ code: z.enum(["CMN_0000", "INVALID_EVENT"]), message: z.string() })
    .describe("In the partner API's dialect: CMN_0000 (received) or INVALID_EVENT (not a partner event)."),
);

/** The text status_url answers: `rescode=0000&resmsg=Success` once taken, another rescode when refused. */
export const statusReplyText = lazySchema(() =>
  z
    .string()
    .regex(/^rescode=[A-Z0-9]+&resmsg=[^&]*$/)
    .describe(
      "Form-encoded text: rescode=0000&resmsg=Success once taken; rescode=EC00&resmsg=… when refused.",
    ),
);
