import { GATEWAY_CURRENCIES } from "./money";

/** The merchant-tunable rules of the charge engine. */
export interface ChargePolicy {
  /** The ISO 4217 codes new subscriptions may be billed in (the gateway's published currencies by default). */
  readonly currencies: readonly string[];
  /** How long a claimed or unknown attempt is left alone before retrieve decides it; must exceed any call's life. */
  readonly inflightWindowMs: number;
  /** Days to wait after each decline before the next attempt; a decline after the last one ends dunning. */
  readonly dunningScheduleDays: readonly number[];
  /**
   * What a decline after the last retry does: cancel the subscription (its token is deleted), or leave it past_due
   * (`dunning_exhausted`, nothing more is charged) until a new card or a cancel comes.
   */
  readonly dunningFinalAction: "cancel" | "past_due";
  /** Gateway rescodes that mean the stored token can no longer be charged. */
  readonly tokenExpiredCodes: readonly string[];
  readonly tokenRevokedCodes: readonly string[];
  /**
   * Refusals that say the card itself is dead (expired, lost or stolen, not a valid number): retrying cannot succeed
   * and can harm the merchant's standing, so the subscription waits for a new card at once. By the v2 `errcode`
   * reason, or by the older rescodes that carried the same meaning.
   */
  readonly deadCardErrcodes: readonly string[];
  readonly deadCardRescodes: readonly string[];
  /** Backoff of transient failures through the queue: base · 2^(receive − 1), at most max (SQS allows 900 s). */
  readonly retryBaseSeconds: number;
  readonly retryMaxSeconds: number;
}

export const DEFAULT_CHARGE_POLICY: ChargePolicy = {
  currencies: GATEWAY_CURRENCIES,
  inflightWindowMs: 5 * 60_000,
  dunningScheduleDays: [1, 3, 5, 7],
  dunningFinalAction: "cancel",
  // The gateway's token codes are not published; these are the sandbox's (see README) and are configurable.
  tokenExpiredCodes: ["TK01"],
  tokenRevokedCodes: ["TK02"],
  // The gateway's v2 error list (README, The real gateway): the card is expired, lost or stolen, not a valid card,
  // barred or unable to pay this way, or the issuer flagged fraud (retrying that harms the merchant's standing).
  // INVAILD_CARD_DATA is spelt as the gateway spells it; the corrected spelling is accepted too.
  deadCardErrcodes: [
    "EXPIRED_CARD",
    "STOLEN_OR_LOST_CARD",
    "INVALID_CARD_NUMBER",
    "INVAILD_CARD_DATA",
    "INVALID_CARD_DATA",
    "RESTRICTED_CARD",
    "NOT_REGISTERED_CARD",
    "CARD_NOT_SUPPORTED",
    "FRAUDULENT_DECLINE",
  ],
  // Older API: S023 expired card, XXXX declined card number.
  deadCardRescodes: ["S023", "XXXX"],
  retryBaseSeconds: 30,
  retryMaxSeconds: 900,
};

/** Delay before the queue redelivers a transiently failed message (receiveCount starts at 1). */
export function retryDelaySeconds(policy: ChargePolicy, receiveCount: number): number {
  const exponent = Math.max(0, Math.min(receiveCount - 1, 20));
  return Math.min(policy.retryMaxSeconds, policy.retryBaseSeconds * 2 ** exponent);
}
