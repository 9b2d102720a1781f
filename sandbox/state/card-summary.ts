// A card as the ledger keeps it: never the number, only what the records and the acquirer need of it.

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

/** What the sandbox keeps of a card. */
export interface CardSummary {
  readonly first4: string;
  readonly last4: string;
  /** Same card, same merchant → same fingerprint (unique_token_id); not reversible. */
  readonly fingerprint: string;
  readonly behaviour: CardBehaviour;
  /**
   * The card's own currency, when its holder pays in it (dynamic currency conversion, DCC): each payment is converted
   * into it and the result names both amounts.
   */
  readonly dccCurrency?: string;
}
