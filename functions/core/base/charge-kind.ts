import * as z from "zod";
import { lazySchema } from "../../shared/lazy-schema";

/**
 * The ledger's period numbers. Scheduled periods count up from 0 (one per billing interval, so 5000 of them take over
 * 400 years); an ad hoc charge — a REBILL of the stored token outside the schedule — takes the next free number from
 * AD_HOC_FIRST_PERIOD up. The kind follows from the key itself, so the order_id (`<id>-<period>-<attempt>`, at most
 * 27 characters here), attemptKeyOf, refunds and reconciliation treat both alike, and nothing can mark a line with
 * the wrong kind. What differs: an ad hoc line never moves its subscription (period, dunning, status).
 */
export const AD_HOC_FIRST_PERIOD = 5000;
/** The ledger's sort key holds 4 period digits: 5000 ad hoc charges per subscription. */
export const AD_HOC_LAST_PERIOD = 9999;

export const chargeKind = lazySchema(() => z.enum(["scheduled", "ad_hoc"]));
export type ChargeKind = z.infer<typeof chargeKind>;

export function isAdHocPeriod(period: number): boolean {
  return period >= AD_HOC_FIRST_PERIOD;
}

export function chargeKindOf(period: number): ChargeKind {
  return isAdHocPeriod(period) ? "ad_hoc" : "scheduled";
}
