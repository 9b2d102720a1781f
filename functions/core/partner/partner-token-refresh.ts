import type { GatewayOutcome } from "../base/outcome";
import type { Clock } from "../ports/clock";

const HOUR_MS = 3_600_000;

/** A stored partner token is replaced once less than this much validity remains (the token lives 24 h). */
export const PARTNER_TOKEN_REFRESH_WINDOW_MS = 2 * HOUR_MS;

/** How often the refresher is scheduled. */
export const PARTNER_TOKEN_REFRESH_INTERVAL_HOURS = 6;

/** Below this many hours left, readers fetch a token of their own (the provider's window): the alarm's threshold. */
export const PARTNER_TOKEN_MIN_HOURS = PARTNER_TOKEN_REFRESH_WINDOW_MS / HOUR_MS;

/**
 * The refresher replaces the stored token once fewer than interval + 2 h remain. With the readers' 2 h window alone
 * a token would reach it between two runs (6 h apart), and every reader would then fetch a token of its own; this
 * way readers always find a token they keep using.
 */
export const PARTNER_TOKEN_REFRESHER_WINDOW_MS =
  (PARTNER_TOKEN_REFRESH_INTERVAL_HOURS + PARTNER_TOKEN_MIN_HOURS) * HOUR_MS;

interface StoredToken {
  readonly token: string;
  readonly expiredAt: string;
}

export interface PartnerTokenRefreshDeps {
  /** A provider whose refresh window is PARTNER_TOKEN_REFRESHER_WINDOW_MS: current() replaces a token that is due. */
  readonly tokens: { current(): Promise<GatewayOutcome<StoredToken>> };
  readonly store: { get(): Promise<StoredToken | undefined> };
  readonly clock: Clock;
}

export type PartnerTokenRefreshReport =
  | { readonly kind: "kept" | "refreshed"; readonly hoursLeft: number; readonly expiredAt: string }
  /** hoursLeft is what the stored token still has (0 without one): the alarm watches it either way. */
  | { readonly kind: "failed"; readonly hoursLeft: number; readonly reason: string };

/** The scheduled partner-token refresh: keeps the stored token while it has time left, otherwise stores a new one. */
export async function refreshPartnerToken(deps: PartnerTokenRefreshDeps): Promise<PartnerTokenRefreshReport> {
  const before = await deps.store.get();
  const outcome = await deps.tokens.current();
  const hoursLeft = (token: StoredToken | undefined) =>
    token === undefined
      ? 0
      : Math.max(0, (Date.parse(token.expiredAt) - deps.clock.now().getTime()) / HOUR_MS);
  if (outcome.kind !== "success") {
    const reason = "reason" in outcome ? outcome.reason : `${outcome.code} ${outcome.message}`;
    return { kind: "failed", hoursLeft: hoursLeft(before), reason: `${outcome.kind}: ${reason}` };
  }
  const { token, expiredAt } = outcome.value;
  return {
    kind: token === before?.token ? "kept" : "refreshed",
    hoursLeft: hoursLeft(outcome.value),
    expiredAt,
  };
}
