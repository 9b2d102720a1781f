/** The merchant-tunable rules of the charge engine. */
export interface ChargePolicy {
  /** How long a claimed or unknown attempt is left alone before retrieve decides it; must exceed any call's life. */
  readonly inflightWindowMs: number;
  /** Days to wait after each decline before the next attempt; a decline after the last one cancels. */
  readonly dunningScheduleDays: readonly number[];
  /** Gateway rescodes that mean the stored token can no longer be charged. */
  readonly tokenExpiredCodes: readonly string[];
  readonly tokenRevokedCodes: readonly string[];
  /** Backoff of transient failures through the queue: base · 2^(receive − 1), at most max (SQS allows 900 s). */
  readonly retryBaseSeconds: number;
  readonly retryMaxSeconds: number;
}

export const DEFAULT_CHARGE_POLICY: ChargePolicy = {
  inflightWindowMs: 5 * 60_000,
  dunningScheduleDays: [1, 3, 5, 7],
  // The gateway's token codes are not published; these are the sandbox's (see README) and are configurable.
  tokenExpiredCodes: ["TK01"],
  tokenRevokedCodes: ["TK02"],
  retryBaseSeconds: 30,
  retryMaxSeconds: 900,
};

/** Delay before the queue redelivers a transiently failed message (receiveCount starts at 1). */
export function retryDelaySeconds(policy: ChargePolicy, receiveCount: number): number {
  const exponent = Math.max(0, Math.min(receiveCount - 1, 20));
  return Math.min(policy.retryMaxSeconds, policy.retryBaseSeconds * 2 ** exponent);
}
