import { DEFAULT_INVOICING_POLICY, type InvoicingPolicy } from "./documents";
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
  /** Backoff of transient failures through the queue: base · 2^(receive − 1), at most max (SQS allows 900 s). */
  readonly retryBaseSeconds: number;
  readonly retryMaxSeconds: number;
  /** What each paid charge is finalized as, and each refund recorded as: numbering, dates, seller, taxes. */
  readonly invoicing: InvoicingPolicy;
}

export const DEFAULT_CHARGE_POLICY: ChargePolicy = {
  currencies: GATEWAY_CURRENCIES,
  inflightWindowMs: 5 * 60_000,
  dunningScheduleDays: [1, 3, 5, 7],
  dunningFinalAction: "cancel",
  retryBaseSeconds: 30,
  retryMaxSeconds: 900,
  invoicing: DEFAULT_INVOICING_POLICY,
};

/** Delay before the queue redelivers a transiently failed message (receiveCount starts at 1). */
export function retryDelaySeconds(policy: ChargePolicy, receiveCount: number): number {
  const exponent = Math.max(0, Math.min(receiveCount - 1, 20));
  return Math.min(policy.retryMaxSeconds, policy.retryBaseSeconds * 2 ** exponent);
}
