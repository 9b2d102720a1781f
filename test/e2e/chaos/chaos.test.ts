import { describe, expect, it } from "vitest";
import { violationsOf } from "../../../local/chaos/chaos-report";
import { runChaos } from "../../../local/chaos/run-chaos";

// The chaos run at CI size (npm run chaos runs it at 10,000 subscription-periods): faults, duplicate deliveries,
// overlapping runs, crashes at every step and revoked tokens, then the invariants of README "Exactly once: how a
// charge is made".

describe("chaos run", () => {
  it("charges every period once, loses none and agrees with the gateway", { timeout: 480_000 }, async () => {
    const report = await runChaos({ size: 160, seed: 20_271_122, crashRate: 0.04 });
    expect(violationsOf(report)).toEqual([]);
    // The run must have been under fire, or it proves nothing.
    const crashes = Object.values(report.crashes).reduce((sum, count) => sum + count, 0);
    expect(crashes).toBeGreaterThan(0);
    // …inside the real handlers: process-charges' own metrics counted its charges and the messages that crashed.
    expect(report.handlerMetrics.chargesSucceeded).toBeGreaterThan(0);
    expect(report.handlerMetrics.messagesFailed).toBeGreaterThan(0);
    expect(report.faults.error + report.faults.timeoutAfterCommit).toBeGreaterThan(0);
    expect(report.duplicateDeliveries).toBeGreaterThan(0);
    expect(report.charged).toBeGreaterThan(report.subscriptions);
    expect(report.windowSignups).toBeGreaterThan(0);
    // The merchant's cancels, pauses (each resumed) and new cards raced the charges.
    const merchant = report.merchantActions;
    expect(merchant.cancelsAtPeriodEnd + merchant.cancelsWithRefund).toBeGreaterThan(0);
    expect(merchant.pauses).toBeGreaterThan(0);
    expect(merchant.resumes).toBe(merchant.pauses);
    expect(merchant.cardUpdates + merchant.cardUpdatesRefused).toBeGreaterThan(0);
    // The customers' own pages: hosted checkouts paid, refused then paid on the page's retry, left to expire; the
    // portal's actions.
    const pages = report.customerPages;
    expect([pages.hostedPaid, pages.hostedRetried, pages.hostedLeft].every((count) => count > 0)).toBe(true);
    expect(pages.portalRetries + pages.portalNewCards + pages.portalCancels).toBeGreaterThan(0);
    // Money under fire: concurrent partial refunds (some made, some refused past the balance), prorated upgrades,
    // forged notices and hints; 500s after commit on the money routes; all audited against the gateway.
    expect(merchant.refundsMade).toBeGreaterThan(0);
    expect(merchant.refundsRefused).toBeGreaterThan(0);
    expect(merchant.upgrades).toBeGreaterThan(0);
    // Seats and coupons raced the renewals, and the capped coupon ran out for some of its takers.
    expect(merchant.seatChanges).toBeGreaterThan(0);
    expect(merchant.couponEdits).toBeGreaterThan(0);
    expect(merchant.couponsRefused).toBeGreaterThan(0);
    expect(merchant.forgedNotices + merchant.forgedHints).toBeGreaterThan(0);
    expect(report.faults.errorAfterCommit).toBeGreaterThan(0);
    expect(report.money.refunds).toBeGreaterThan(merchant.refundsMade);
    expect(report.money.prorations).toBeGreaterThan(0);
    // Event delivery died after publishing and the bus was down: every event still arrived, some more than once.
    expect(report.crashes.afterPublish).toBeGreaterThan(0);
    // Our webhooks' functions died too, after queueing deliveries and after an endpoint took one.
    expect(report.crashes.afterFanOut + report.crashes.afterWebhookPost).toBeGreaterThan(0);
    expect(report.refusedDeliveries).toBeGreaterThan(0);
    expect(report.events.duplicates).toBeGreaterThan(0);
    expect(report.events.distinct).toBeGreaterThan(report.charged);
    // Mails went out under those copies while the mail service refused some sends: each once, none lost.
    expect(report.mails.owed).toBeGreaterThan(report.subscriptions);
    expect(report.mails.sent).toBeGreaterThanOrEqual(report.mails.owed);
    expect(report.refusedMails).toBeGreaterThan(0);
    // …and under the real gateway's own forms: no-status and short-name callbacks, token payments and deletions,
    // EM00/EX1000 answers, attempts voided by Q004, chargebacks that moved on after their report.
    const { realForms } = report;
    expect(realForms.callbacks.real).toBeGreaterThan(0);
    expect(realForms.callbacks.short + realForms.callbacks.seed).toBeGreaterThan(0);
    // The real gateway's way: results posted as forms, answered with its text rescode=0000.
    expect(realForms.formsAcknowledged).toBeGreaterThan(0);
    expect(realForms.tokenPayments).toBeGreaterThan(report.subscriptions);
    expect(realForms.tokenDeletions).toBeGreaterThan(0);
    expect(realForms.internalErrors).toBeGreaterThan(0);
    expect(realForms.voidedByRetrieve).toBeGreaterThan(0);
    expect(realForms.chargebackStatusChanges).toBeGreaterThan(0);
    // Webhooks to the SaaS's receivers, which answered 500/503 and hung past the sender's timeout at random: every
    // event still reached the endpoint subscribed to its type (the copies the bus received too), retried on the local
    // clock; the failing endpoints' types cover every event, and the healthy one got its few types alone.
    const endpoint = (name: string) => {
      const found = report.webhooks.endpoints.find((candidate) => candidate.name === name);
      if (found === undefined) throw new Error(`no webhook endpoint ${name} in the report`);
      return found;
    };
    const flaky = endpoint("flaky");
    const hanging = endpoint("hanging");
    const healthy = endpoint("healthy");
    expect(flaky.owed + hanging.owed).toBe(report.events.distinct);
    expect(flaky.deliveries + hanging.deliveries).toBe(report.events.published);
    expect(flaky.copies + hanging.copies).toBeGreaterThan(0);
    expect(flaky.refused).toBeGreaterThan(0);
    // A refusal is retried, unless send-webhooks died after that POST: its message came back, the attempt unrecorded.
    const unrecorded = report.crashes.afterWebhookPost;
    expect(flaky.retries + unrecorded).toBeGreaterThanOrEqual(flaky.refused);
    expect(hanging.timedOut).toBeGreaterThan(0);
    expect(hanging.retries + unrecorded).toBeGreaterThanOrEqual(hanging.timedOut);
    expect(healthy.owed).toBeGreaterThan(report.subscriptions);
    expect(healthy.owed).toBeLessThan(hanging.owed);
    expect(report.webhookMetrics.attemptsFailed).toBeGreaterThan(0);
    expect(report.webhookMetrics.deliveriesFailed).toBe(0);
  });
});
