import * as z from "zod";
import { PAYMENT_COMPLETED_EVENT } from "../core/partner/partner-webhook-setup";
import {
  checkedIntake,
  type Intake,
  MAX_DATE_LENGTH,
  MAX_REASON_LENGTH,
} from "../core/ports/intake-messages";
import { partnerWebhookEvent } from "../gateway/schemas/partner";

// The gateway's partner events and signed webhooks, read into the intake messages process-intake handles: only ids
// and a chargeback's facts are kept.

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
const gatewayWebhookBody = z.object({
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
});

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
