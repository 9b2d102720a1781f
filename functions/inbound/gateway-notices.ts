import * as z from "zod";
import { PAYMENT_COMPLETED_EVENT } from "../core/partner/partner-webhook-setup";
import type { Clock } from "../core/ports/clock";
import {
  checkedIntake,
  type Intake,
  type IntakeQueue,
  MAX_DATE_LENGTH,
  MAX_REASON_LENGTH,
} from "../core/ports/intake-messages";
import { PARTNER_SUCCESS_CODE, partnerWebhookEvent } from "../gateway/schemas/partner";
import { STATUS_RECEIVED_REPLY, statusReply } from "../gateway/status-reply";
import { webhookAckReply } from "../gateway/webhook-signature";
import { lazySchema } from "../shared/lazy-schema";

// Every gateway callback read into the intake messages process-intake handles — the payment window's status_url,
// a plan's recurring_noti_url, partner events and signed webhooks — and the answer each expects in the gateway's own
// words: only ids, the untouched status query and a chargeback's facts are kept.

/** What a callback's receiver needs: the intake queue, and the clock that stamps what it queues. */
export interface CallbackDeps {
  readonly queue: IntakeQueue;
  readonly clock: Clock;
}

/** What a partner event comes to: a PAYMENT_COMPLETED hint, another event type (ignored), or unreadable. */
export type PartnerIntake = Intake | { readonly ok: "ignored"; readonly eventType: string };

export function partnerEventIntake(body: unknown, now: Date): PartnerIntake {
  const event = partnerWebhookEvent.safeParse(body, { reportInput: false });
  if (!event.success) return { ok: false, reason: "not a partner webhook event" };
  if (event.data.eventType !== PAYMENT_COMPLETED_EVENT)
    return { ok: "ignored", eventType: event.data.eventType };
  return checkedIntake({
    kind: "partner",
    event_id: event.data.id || undefined,
    transaction_id: event.data.data.payment?.transactionId || undefined,
    order_id: event.data.data.invoice?.invoiceNumber || undefined,
    received_at: now.toISOString(),
  });
}

/**
 * The gateway webhook body: seed 001 shows {rescode, resmsg, type, data}; the real CHARGEBACK (README, The real
 * gateway) has no rescode and carries the chargeback's lifecycle in data.chargeback_*. Only ids and the chargeback's
 * facts are read; the rest (amounts, card flags, param1..3) stays behind.
 */
const gatewayWebhookBody = lazySchema(() =>
  z.object({
    type: z.string(),
    data: z
      .object({
        transaction_id: z.string().optional(),
        order_id: z.string().optional(),
        chargeback_id: z.string().optional(),
        chargeback_status: z.string().optional(),
        chargeback_reason: z.string().optional(),
        chargeback_report_date: z.string().optional(),
        chargeback_deadline: z.string().optional(),
        chargeback_resolve_date: z.string().optional(),
        chargeback_deduct_date: z.string().optional(),
      })
      .nullish(),
  }),
);

type WebhookData = NonNullable<z.output<typeof gatewayWebhookBody>["data"]>;

/** The chargeback's facts of a CHARGEBACK body; blanks are absent. */
function chargebackOf(data: WebhookData) {
  const facts = {
    status: data.chargeback_status || undefined,
    // Free text and dates are cut to their bound rather than refused: a verified chargeback must not be dropped.
    reason: data.chargeback_reason?.slice(0, MAX_REASON_LENGTH) || undefined,
    report_date: data.chargeback_report_date?.slice(0, MAX_DATE_LENGTH) || undefined,
    deadline: data.chargeback_deadline?.slice(0, MAX_DATE_LENGTH) || undefined,
    resolve_date: data.chargeback_resolve_date?.slice(0, MAX_DATE_LENGTH) || undefined,
    deduct_date: data.chargeback_deduct_date?.slice(0, MAX_DATE_LENGTH) || undefined,
  };
  return Object.values(facts).some((value) => value !== undefined) ? facts : undefined;
}

/** A verified gateway webhook: its raw body read for the type, the ids and a chargeback's facts. */
export function gatewayWebhookIntake(rawBody: string, now: Date): Intake {
  let json: unknown;
  try {
    json = JSON.parse(rawBody);
  } catch {
    return { ok: false, reason: "body is not JSON" };
  }
  const body = gatewayWebhookBody.safeParse(json, { reportInput: false });
  if (!body.success) return { ok: false, reason: "body has no webhook type" };
  const { type, data } = body.data;
  return checkedIntake({
    kind: "gateway",
    type,
    transaction_id: data?.transaction_id || undefined,
    order_id: data?.order_id || undefined,
    chargeback_id: data?.chargeback_id || undefined,
    chargeback: data ? chargebackOf(data) : undefined,
    received_at: now.toISOString(),
  });
}

/** A status_url call: its query string, untouched (a leading "?" dropped). */
export function statusCallbackIntake(query: string, now: Date): Intake {
  return checkedIntake({
    kind: "status",
    query: query.startsWith("?") ? query.slice(1) : query,
    received_at: now.toISOString(),
  });
}

const recurringNoticeBody = lazySchema(() =>
  z.object({
    order_id: z.string().optional().catch(undefined),
    recurring_id: z.string().optional().catch(undefined),
  }),
);

/** A recurring_noti_url call: subscription_id from our URL's query, the order and the plan from the gateway's body. */
export function recurringNoticeIntake(subscriptionId: string | undefined, body: unknown, now: Date): Intake {
  const read = recurringNoticeBody.safeParse(body);
  return checkedIntake({
    kind: "recurring",
    subscription_id: subscriptionId,
    order_id: read.success ? read.data.order_id : undefined,
    recurring_id: (read.success && read.data.recurring_id) || undefined,
    received_at: now.toISOString(),
  });
}

/** What the status_url delivery is answered: form-encoded text; any answer but the received one brings it again. */
export const statusCallbackReply = {
  received: STATUS_RECEIVED_REPLY,
  refused: (reason: string) => statusReply("EC00", `Invalid parameter: ${reason}`),
};

/** What a partner event is answered (JSON; a fresh object each call, as every reply body). */
export const partnerEventReply = {
  received: () => ({ code: PARTNER_SUCCESS_CODE, message: "Success" }),
  refused: (reason: string) => ({ code: "INVALID_EVENT", message: reason }),
};

/** What a recurring notice is answered (JSON): `parameter` names what was wrong, never its value. */
export const recurringNoticeReply = {
  received: webhookAckReply,
  refused: (parameter: string) => ({ rescode: "EC00", resmsg: `Invalid parameter: ${parameter}` }),
};
