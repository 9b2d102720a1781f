import { createHmac } from "node:crypto";
import { passesCheckDigit } from "../shared/gateway-crypto";
import type { CardBehaviour, CardSummary } from "../state/card-summary";

/** The sandbox's test card numbers; any other number behaves as cardBehaviour reads it. */
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
 * Test cards issued in another currency, whose holders pay in it (DCC): approved like 4111…, each payment converted
 * at the sandbox's rates (acquirer/currency-conversion.ts).
 */
export const DCC_CARDS: Readonly<Record<string, string>> = {
  "4000000000000416": "KRW",
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
  const known = TEST_CARDS[cardNumber] ?? (DCC_CARDS[cardNumber] === undefined ? undefined : "approve");
  if (known) return known;
  return /^\d{12,19}$/.test(cardNumber) && passesCheckDigit(cardNumber) ? "approve" : "invalid_number";
}

/** The card as the ledger keeps it (state/card-summary.ts): its number is read here and dropped. */
export function summarizeCard(mid: string, cardNumber: string): CardSummary {
  return {
    first4: cardNumber.slice(0, 4),
    last4: cardNumber.slice(-4),
    fingerprint: createHmac("sha256", "sandbox-card-fingerprint")
      .update(`${mid}:${cardNumber}`)
      .digest("base64url")
      .slice(0, 22),
    behaviour: cardBehaviour(cardNumber),
    ...(DCC_CARDS[cardNumber] === undefined ? {} : { dccCurrency: DCC_CARDS[cardNumber] }),
  };
}
