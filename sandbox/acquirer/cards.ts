import { createHmac } from "node:crypto";
import { passesCheckDigit } from "../shared/gateway-crypto";

/**
 * How a card behaves in the sandbox. Test numbers pick a behaviour; any other Luhn-valid number is approved, a
 * Luhn-invalid one is refused as a bad card number. The card number itself is never stored: only this summary.
 */
export type CardBehaviour =
  | "approve"
  | "decline"
  | "insufficient_funds"
  | "expired_card"
  | "stolen_card"
  /** Approved; a chargeback of the payment follows a day later on the sandbox clock. */
  | "chargeback"
  /** Customer-initiated payments need payer authentication first (a PAYER_AUTH window): PA01 without it. */
  | "payer_auth_required"
  /** Approved on the first payment, declined on every REBILL of its token (dunning tests). */
  | "decline_on_rebill"
  /** The acquirer link fails (EE01): the client must treat the outcome as unknown. */
  | "acquirer_error"
  | "invalid_number";

export const TEST_CARDS: Readonly<Record<string, CardBehaviour>> = {
  "4111111111111111": "approve",
  "5555555555554444": "approve",
  "4000000000000002": "decline",
  "4000000000009995": "insufficient_funds",
  "4000000000000069": "expired_card",
  "4000000000009979": "stolen_card",
  "4000000000000259": "chargeback",
  "4000000000003220": "payer_auth_required",
  "4000000000000341": "decline_on_rebill",
  "4000000000000119": "acquirer_error",
};

/**
 * The refusal each behaviour answers with. The rescodes of declines are invented (the seeds list none); the v2
 * `errcode` reasons are the gateway's own names (README, The real gateway).
 */
export const CARD_REFUSALS = {
  decline: { rescode: "DC05", resmsg: "Do not honor", errcode: "GENERIC_DECLINE" },
  insufficient_funds: { rescode: "DC51", resmsg: "Insufficient funds", errcode: "INSUFFICIENT_FUNDS" },
  expired_card: { rescode: "DC54", resmsg: "Expired card", errcode: "EXPIRED_CARD" },
  stolen_card: { rescode: "DC43", resmsg: "Stolen card", errcode: "STOLEN_OR_LOST_CARD" },
  payer_auth_required: {
    rescode: "PA01",
    resmsg: "Payer authentication required",
    errcode: "INVALID_AUTHENTICATION",
  },
  decline_on_rebill: { rescode: "DC05", resmsg: "Do not honor", errcode: "GENERIC_DECLINE" },
  acquirer_error: { rescode: "EE01", resmsg: "Acquirer communication error" },
  invalid_number: { rescode: "HE00", resmsg: "Invalid card number", errcode: "INVALID_CARD_NUMBER" },
} as const satisfies Record<
  Exclude<CardBehaviour, "approve" | "chargeback">,
  { rescode: string; resmsg: string; errcode?: string }
>;

export function cardBehaviour(cardNumber: string): CardBehaviour {
  const known = TEST_CARDS[cardNumber];
  if (known) return known;
  return /^\d{12,19}$/.test(cardNumber) && passesCheckDigit(cardNumber) ? "approve" : "invalid_number";
}

/** What the sandbox keeps of a card. */
export interface CardSummary {
  readonly first4: string;
  readonly last4: string;
  /** Same card, same merchant → same fingerprint (unique_token_id); not reversible. */
  readonly fingerprint: string;
  readonly behaviour: CardBehaviour;
}

export function summarizeCard(mid: string, cardNumber: string): CardSummary {
  return {
    first4: cardNumber.slice(0, 4),
    last4: cardNumber.slice(-4),
    fingerprint: createHmac("sha256", "sandbox-card-fingerprint")
      .update(`${mid}:${cardNumber}`)
      .digest("base64url")
      .slice(0, 22),
    behaviour: cardBehaviour(cardNumber),
  };
}
