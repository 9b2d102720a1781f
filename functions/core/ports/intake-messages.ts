import * as z from "zod";
import { containsCardNumber } from "../../shared/card-number";
import { lazySchema } from "../../shared/lazy-schema";

// What the webhook receivers hand to process-intake through the intake queue (README, Merchant API: the webhook
// routes): ids and the status_url query string only, never card data. The receivers acknowledge fast; every decision
// is the processor's.

/** Longer status_url queries are refused: the documented parameters stay far below this. */
export const MAX_STATUS_QUERY_LENGTH = 8192;

const CARD_SECRET_KEYS = /^(?:cvc|cvv|cvc2|cvv2|card_?no|pan)$/i;

/**
 * The status query carries masked card fields only (card_number1 / card_number4, a masked card_number): a
 * parameter that looks like a full card number, or a CVC, is card data and must not be queued or stored.
 */
export function carriesCardData(query: string): boolean {
  for (const [key, value] of new URLSearchParams(query)) {
    if (CARD_SECRET_KEYS.test(key) || containsCardNumber(key) || containsCardNumber(value)) return true;
  }
  return false;
}

const receivedAt = lazySchema(() => z.iso.datetime({ offset: true }));
const id = lazySchema(() => z.string().min(1).max(100));
export const MAX_REASON_LENGTH = 500;
export const MAX_DATE_LENGTH = 20;
const gatewayDate = lazySchema(() => z.string().max(MAX_DATE_LENGTH).optional());

/** What a CHARGEBACK webhook says of the chargeback (the real body's chargeback_* fields). */
const chargebackFacts = lazySchema(() =>
  z.strictObject({
    status: id.optional(),
    reason: z.string().max(MAX_REASON_LENGTH).optional(),
    report_date: gatewayDate,
    deadline: gatewayDate,
    resolve_date: gatewayDate,
    deduct_date: gatewayDate,
  }),
);

export const statusQueryText = lazySchema(() =>
  z
    .string()
    .min(1, "is required")
    .max(MAX_STATUS_QUERY_LENGTH, `must be at most ${MAX_STATUS_QUERY_LENGTH} characters`)
    .refine((query) => !carriesCardData(query), "must not carry card data"),
);

export const intakeMessageSchema = lazySchema(() =>
  z.discriminatedUnion("kind", [
    /** The status_url query string exactly as received: verify needs it untouched. */
    z.strictObject({ kind: z.literal("status"), query: statusQueryText, received_at: receivedAt }),
    /** A signed gateway webhook (CHARGEBACK, PAYOUT_*): its type, the ids of its data and a chargeback's status. */
    z.strictObject({
      kind: z.literal("gateway"),
      type: id,
      transaction_id: id.optional(),
      order_id: id.optional(),
      chargeback_id: id.optional(),
      chargeback: chargebackFacts.optional(),
      received_at: receivedAt,
    }),
    /** A partner PAYMENT_COMPLETED event: unsigned, so only a hint to be confirmed by retrieve. */
    z.strictObject({
      kind: z.literal("partner"),
      event_id: id.optional(),
      transaction_id: id.optional(),
      /** The invoice number: the order_id when the payment is one of our orders. */
      order_id: id.optional(),
      received_at: receivedAt,
    }),
    /**
     * A recurring_noti_url call whose secret matched: our subscription (from its query), the gateway's order and, when
     * the body names it, the plan (from its body).
     */
    z.strictObject({
      kind: z.literal("recurring"),
      subscription_id: id,
      order_id: id,
      recurring_id: id.optional(),
      received_at: receivedAt,
    }),
  ]),
);
export type IntakeMessage = z.output<typeof intakeMessageSchema>;

/** Where the receivers put their messages (an SQS queue). */
export interface IntakeQueue {
  send(message: IntakeMessage): Promise<void>;
}

/** What a receiver makes of a delivery: a message to queue, or a refusal naming why (never a value). */
export type Intake =
  | { readonly ok: true; readonly message: IntakeMessage }
  | { readonly ok: false; readonly reason: string };

/** Checks what a receiver read against the message schema: the message to queue, or the first problem. */
export function checkedIntake(input: unknown): Intake {
  const parsed = intakeMessageSchema.safeParse(input, { reportInput: false });
  if (parsed.success) return { ok: true, message: parsed.data };
  const [issue] = parsed.error.issues;
  return { ok: false, reason: `${issue?.path.join(".") || "(message)"} ${issue?.message ?? "is invalid"}` };
}

/** Parses a queued body; throws (naming the field, never the value) when it is not an intake message. */
export function parseIntakeMessage(body: string): IntakeMessage {
  let json: unknown;
  try {
    json = JSON.parse(body);
  } catch {
    throw new Error("malformed intake message: not JSON");
  }
  const result = checkedIntake(json);
  if (!result.ok) throw new Error(`malformed intake message: ${result.reason}`);
  return result.message;
}
