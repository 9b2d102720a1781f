import { summarizeCard } from "../acquirer/cards";
import { decryptCardField } from "../shared/gateway-crypto";
import type { CardSummary } from "../state/card-summary";
import type { Ledger } from "../state/ledger";
import type { Merchant } from "../state/merchant-config";
import { parseBody, refuseField } from "./payment-codes";
import { plaintextCard } from "./payment-requests";

/** A card the customer presented, reduced at once to what the sandbox keeps: the CVC is checked and dropped. */
export interface PresentedCard {
  readonly card: CardSummary;
  /** YYYYMM. */
  readonly expiry: string;
}

const CARD_FIELDS = ["card_number", "expiry_date", "cvc"] as const;
type EncryptedCard = Readonly<Record<(typeof CARD_FIELDS)[number], string>>;

/**
 * A plaintext card (HE00 number, HE01 expiry, HE02 CVC; `at` prefixes the
 * field name), and refused with HE01 when it expired before the current month of the sandbox clock.
 */
export function readPlaintextCard(
  mid: string,
  input: unknown,
  ledger: Ledger,
  now: Date,
  at = "",
): PresentedCard {
  const card = parseBody(plaintextCard, input, at);
  if (card.expiry_date < ledger.date(now).slice(0, 6))
    refuseField(`${at}expiry_date`, "the card has expired");
  return { card: summarizeCard(mid, card.card_number), expiry: card.expiry_date };
}

/** The non-ui payment's card fields, decrypted with the merchant's AES key; a field that does not decrypt is HE0x. */
export function readEncryptedCard(
  merchant: Merchant,
  fields: EncryptedCard,
  ledger: Ledger,
  now: Date,
): PresentedCard {
  const plaintext: Record<string, string> = {};
  for (const field of CARD_FIELDS) {
    plaintext[field] =
      decryptCardField(fields[field], merchant.aesKeyHex) ??
      refuseField(`payment.${field}`, "does not decrypt with the merchant's key");
  }
  return readPlaintextCard(merchant.mid, plaintext, ledger, now, "payment.");
}
