import type { ChargePolicy } from "../../functions/core/base/charge-policy";
import type { DeclineCodes } from "../../functions/gateway/decline-codes";
import type { FaultConfigInput } from "../../sandbox/faults/faults";

// The demo's month: its calendar (the script's days and what happens on each) and the conditions it runs under (the
// gateway's faults, a short retry policy, a revoked token declined like any card).

/** A fixed start, so every run meets the same calendar (renewals on the 15th, month lengths). */
export const DEMO_START = new Date("2027-01-15T09:00:00.000Z");

/** Transient failures come back after 1–4 s instead of 30–900 s, so they resolve within the run. */
export const DEMO_POLICY: Partial<ChargePolicy> = { retryBaseSeconds: 1, retryMaxSeconds: 4 };
/**
 * A revoked token (TK02) is an ordinary decline here, so that a card blocked over a renewal and unblocked before the
 * first dunning retry is recovered by that retry.
 */
export const DEMO_DECLINE_CODES: Partial<DeclineCodes> = { tokenRevokedCodes: [] };

/**
 * Modest faults on every gateway route; timeouts after commit on the sign-up and REBILL routes only. Each
 * of those costs the handler's whole gateway timeout (10 s, not configurable from the environment) of wall time, so
 * they are rarer once the month runs: a sign-up's wait overlaps the other sign-ups, a renewal's holds up its day.
 */
export const DEMO_FAULTS: Readonly<Record<"signups" | "month", FaultConfigInput>> = {
  signups: {
    // Window results mostly in the real gateway's form, some in the seed's or with the older short names.
    global: { errorRate: 0.05, duplicateStatusUrlRate: 0.3, mixedCallbackFormRate: 0.3 },
    routes: { "payments.payment": { timeoutAfterCommitRate: 0.03 } },
  },
  month: {
    global: { errorRate: 0.05, duplicateStatusUrlRate: 0.3, mixedCallbackFormRate: 0.3 },
    routes: {
      "payments.payment": { timeoutAfterCommitRate: 0.01 },
      // The gateway's own internal errors on renewals: unknown outcomes that retrieve settles (Q004 voids them).
      "payments.tokenbilling.rebill": { timeoutAfterCommitRate: 0.01, internalErrorRate: 0.02 },
    },
  },
};

/**
 * Schedules fire at most once a week while the clock jumps between the script's days (each fire-set of the five
 * schedules costs about a second of dynalite work); every step still ends with one fire of each, so the work due on a
 * script day is done that day.
 */
export const JUMP_RESOLUTION = "P7D";

/** What happens on a day of the script, once that day's schedules have fired. */
export type ScriptEvent =
  | "extras"
  | "upgrades"
  | "dead-and-blocked-cards"
  | "pauses"
  | "unblock-cards"
  | "cancels"
  | "card-updates"
  | "resumes";

/**
 * The script, in days after the start: the clock stops on these days. Renewals fall on day 31 (15 Feb) and day 59
 * (15 Mar). A decline on day 31 is retried after 1, 3, 5 and 7 days, the last decline cancels: the first retry on day
 * 32, the later ones at the weekly fires of the jump to day 59.
 */
export const SCRIPT: readonly { readonly day: number; readonly event?: ScriptEvent }[] = [
  { day: 1, event: "extras" },
  { day: 10, event: "upgrades" },
  { day: 20, event: "dead-and-blocked-cards" },
  { day: 21, event: "pauses" },
  // After the renewal has declined, before the first dunning retry.
  { day: 31, event: "unblock-cards" },
  { day: 32, event: "cancels" },
  // past_due since the renewal, after a dunning retry: a new card pays the overdue period.
  { day: 33, event: "card-updates" },
  // The paid period ended during the pause: the resume re-anchors the schedule and charges at once.
  { day: 45, event: "resumes" },
  { day: 59 },
  { day: 62 },
];
