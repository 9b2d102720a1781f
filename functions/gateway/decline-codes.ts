import * as z from "zod";

/**
 * The refusals no retry can mend, in the gateway's codes. The token codes are not published: these are the sandbox's
 * (README, The real gateway). A merchant may override any list (GATEWAY_DECLINE_CODES).
 */
export const declineCodesSchema = z.strictObject({
  /** rescodes that say the stored token has expired. */
  tokenExpiredCodes: z.array(z.string().min(1)),
  /** rescodes that say the stored token was revoked. */
  tokenRevokedCodes: z.array(z.string().min(1)),
  /**
   * The card itself is dead (expired, lost or stolen, not a valid number): retrying cannot succeed and can harm the
   * merchant's standing. By the v2 `errcode` reason, or by the older rescodes that carried the same meaning.
   */
  deadCardErrcodes: z.array(z.string().min(1)),
  deadCardRescodes: z.array(z.string().min(1)),
});

export type DeclineCodes = z.output<typeof declineCodesSchema>;

export const DEFAULT_DECLINE_CODES: DeclineCodes = {
  tokenExpiredCodes: ["TK01"],
  tokenRevokedCodes: ["TK02"],
  // The v2 error list (README, The real gateway): the card is expired, lost or stolen, not a valid card, barred or
  // unable to pay this way, or the issuer flagged fraud. INVAILD_CARD_DATA is spelt as the gateway spells it; the
  // corrected spelling is accepted too.
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
};

/** Why no retry of a refusal can succeed: the token is expired or revoked, or the card is dead. */
export type DeadEnd = "token_expired" | "token_revoked" | "dead_card";

/** The dead end a refusal's rescode or errcode names under these codes, or undefined (an ordinary decline). */
export function deadEndOf(
  codes: DeclineCodes,
  { code, errcode }: { readonly code: string; readonly errcode?: string },
): DeadEnd | undefined {
  if (codes.tokenExpiredCodes.includes(code)) return "token_expired";
  if (codes.tokenRevokedCodes.includes(code)) return "token_revoked";
  const deadCard =
    (errcode !== undefined && codes.deadCardErrcodes.includes(errcode)) ||
    codes.deadCardRescodes.includes(code);
  return deadCard ? "dead_card" : undefined;
}

/** Why a payment was declined, in the customer's terms: what a page, a mail or a merchant can act on. */
export type GatewayDeclineReason =
  | "insufficient_funds"
  | "card_declined"
  | "limit_exceeded"
  | "try_again_later"
  | "expired_card"
  | "card_unusable"
  | "authentication_failed";

/**
 * The v2 errcodes (README, The real gateway) by the reason they give; any other decline is the issuer's plain
 * decline. A dead card's codes (deadCardErrcodes) that are not listed read as unusable.
 */
const REASONS_BY_ERRCODE: Readonly<Record<string, GatewayDeclineReason>> = {
  INSUFFICIENT_FUNDS: "insufficient_funds",
  CARD_VELOCITY_EXCEEDED: "limit_exceeded",
  CARD_PAYMENT_COUNT_EXCEEDED: "limit_exceeded",
  TEMPORARY_ERROR: "try_again_later",
  EXPIRED_CARD: "expired_card",
  INVALID_AUTHENTICATION: "authentication_failed",
  INVALID_CAVV: "authentication_failed",
  INVALID_PASSWORD: "authentication_failed",
  PASSWORD_REQUIRED: "authentication_failed",
  INVALID_CVC: "authentication_failed",
};

/** The reason of a decline, from its errcode, else from what its codes say of the token or card. */
export function declineReasonOf(
  codes: DeclineCodes,
  declined: { readonly code: string; readonly errcode?: string },
): GatewayDeclineReason {
  const named = declined.errcode === undefined ? undefined : REASONS_BY_ERRCODE[declined.errcode];
  if (named !== undefined) return named;
  if (codes.tokenExpiredCodes.includes(declined.code) || declined.code === "S023") return "expired_card";
  return deadEndOf(codes, declined) === undefined ? "card_declined" : "card_unusable";
}
