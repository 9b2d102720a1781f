import { z } from "zod";
import { addMonthsClamped } from "../../functions/core/base/billing-period";
import { DEFAULT_CHARGE_POLICY } from "../../functions/core/base/charge-policy";
import { mapConcurrently } from "../../functions/shared/map-concurrently";
import { createPrng, deriveSeed } from "../../sandbox/shared/prng";
import { type LeakSource, outboxSources } from "../audit/leak-scan";
import { MerchantClient } from "../clients/merchant-client";
import { scheduledEvent } from "../lambda/lambda-context";
import type { ChaosReport } from "./chaos-report";
import { CHAOS_FAULTS, ChaosStack, revokeSomeTokens } from "./chaos-stack";
import { CustomerPages, portalActions } from "./customer-pages";
import { checkInvariants, leaksOf } from "./invariant-checks";
import { MerchantActions } from "./merchant-actions";
import { reconcileRun } from "./reconciliation-audit";
import { settleDeliveries, settleEverything } from "./settling";
import { LAST_SIGNUP_AT, MONTHLY, signUp, signUpThroughWindows, WINDOW_CARDS } from "./sign-ups";
import { CHAOS_WEBHOOK_RECEIVERS, startWebhookReceiver, type WebhookReceiver } from "./webhook-receivers";

// The chaos run (README, Proof under fire): subscriptions renewed month after month on the local runtime while the
// sandbox injects 5xx, timeouts after commit, latency spikes, duplicate callbacks and out-of-order webhooks; every
// charge message is delivered twice and two charge runs overlap; workers die between every step of the charge
// protocol and inside the attempt sweep; tokens are revoked in the middle of a run; event delivery dies between the
// bus taking events and their outbox being marked, and the bus is down for a whole renewal; the merchant cancels,
// pauses, resumes and gives new cards while the workers charge the same subscriptions; the SaaS's webhook receivers
// answer 500/503 or hang at random. At the end: no period charged twice, none lost, our ledger equal to the
// gateway's, every dead letter explained, every event delivered — to the bus, and to every webhook endpoint — and the
// run's days reconciled with the gateway's transactions and payouts without a mismatch.

export interface ChaosOptions {
  /** Subscription-periods to charge: sign-ups × (renewals + 1). */
  readonly size: number;
  readonly seed: number;
  readonly renewals?: number;
  /** Probability of a crash at each crash point a worker passes. */
  readonly crashRate?: number;
  /** Concurrent charge workers. */
  readonly workers?: number;
  readonly onProgress?: (step: string) => void;
}

/** The merchant client's first retry delay (up to 20 times it between its 10 retries). */
const MERCHANT_RETRY_DELAY_MS = 150;

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = performance.now();
  const renewals = options.renewals ?? 3;
  const progress = options.onProgress ?? (() => undefined);
  const random = createPrng(deriveSeed(options.seed, "chaos"));
  const chaos = await ChaosStack.start(options.seed, options.crashRate ?? 0.01, () => random.next());
  const { local, stack } = chaos;
  const firstDay = stack.clock.now();
  const receivers: WebhookReceiver[] = [];
  try {
    const count = Math.max(1, Math.ceil(options.size / (renewals + 1)));
    const windows = Math.max(4, Math.round(count * 0.05));
    const answers: string[] = [];
    // A patient merchant: a request with the same key still running (concurrent refunds under one key wait their
    // turn behind lost answers) is asked again for up to half a minute.
    const client = new MerchantClient(local.url, local.apiKey, MERCHANT_RETRY_DELAY_MS);
    // The SaaS registers its receivers before anything happens: every event on the bus is owed to each one
    // subscribed to its type.
    for (const spec of CHAOS_WEBHOOK_RECEIVERS) {
      const draws = createPrng(deriveSeed(options.seed, `chaos-webhook-${spec.name}`));
      receivers.push(await startWebhookReceiver(spec, client, draws.next));
    }
    const cardIds = await signUp(stack, client, count - windows, () => random.next(), progress, answers);
    stack.sandbox.faults.configure(CHAOS_FAULTS);
    const pages = new CustomerPages(client, local.sandboxUrl, WINDOW_CARDS, () => random.next(), answers);
    const ids = [
      ...cardIds,
      ...(await signUpThroughWindows(local, client, windows, answers)),
      ...(await pages.hostedCheckouts(windows, MONTHLY)),
    ];
    // What the merchant and the customers act on: every subscription but the checkouts left to expire.
    const live = ids.filter((id) => !pages.leftToExpire.has(id));
    const merchant = new MerchantActions(client, () => random.next(), answers);
    const functions = chaos.chargeFunctions();
    const chargeRun = () =>
      functions.chargeRun.invoke("run-charges", scheduledEvent(stack.clock.now().toISOString()));
    const settle = () => settleEverything(local, functions, options.workers ?? 4);
    let revokedTokens = 0;
    let heldOutboxes: LeakSource[] = [];
    for (let renewal = 1; renewal <= renewals; renewal += 1) {
      progress(`renewal ${renewal} of ${renewals}`);
      await local.setClock(new Date(addMonthsClamped(LAST_SIGNUP_AT, renewal).getTime() + 60_000));
      const runs = Promise.all([chargeRun(), chargeRun()]);
      // Mid-run, some customers' tokens are revoked at the gateway: those renewals go to past_due.
      if (renewal === 2) revokedTokens = await revokeSomeTokens(stack, ids, () => random.next());
      // The bus is down for the whole second renewal: its events wait in their outboxes.
      stack.eventBridge.outage = renewal === 2;
      await runs;
      // The merchant's cancels, pauses, resumes and new cards, and the customers' portal, race the workers charging
      // this renewal.
      await Promise.all([
        settle(),
        merchant.during(renewal, live, stack.services.repository),
        renewal === 3 ? portalActions(pages, live, stack) : undefined,
      ]);
      // A resume charges at once: what it handed the workers is settled before the next renewal.
      await settle();
      await merchant.afterSettling(renewal);
      if (renewal === 2) heldOutboxes = await outboxSources(stack.delivery.repository);
      stack.eventBridge.outage = false;
    }
    // Dunning: a charge run each day until the last retry of the schedule (1, 3, 5, 7 days) is behind us.
    const dunningDays = DEFAULT_CHARGE_POLICY.dunningScheduleDays.reduce((sum, days) => sum + days, 0) + 1;
    for (let day = 1; day <= dunningDays; day += 1) {
      progress(`dunning day ${day} of ${dunningDays}`);
      await local.advanceClock("P1D");
      await chargeRun();
      await settle();
    }
    progress("checking");
    const webhookSettleHours = await settleDeliveries(local, chaos.delivery);
    // Every view a merchant reads (each subscription and its ledger) goes to the leak scan with the other answers.
    await mapConcurrently(ids, 8, async (id) => {
      for (const path of [`/v1/subscriptions/${id}`, `/v1/subscriptions/${id}/charges`])
        answers.push(JSON.stringify(await client.get(path, z.unknown())));
    });
    const invariants = await checkInvariants(
      stack,
      ids,
      receivers.map((receiver) => receiver.log()),
    );
    const couponsOverRedeemed = await merchant.couponOverRedemptions(await stack.events());
    // The gateway's own reports of the run, read once it answers again (its faults counted before they stop).
    const faults = stack.sandbox.faults.counters().total;
    stack.sandbox.faults.configure({});
    const reconciliation = await reconcileRun(local, firstDay);
    const { output, handlerMetrics, webhookMetrics } = chaos.endCapture();
    const { leaks, scanned } = await leaksOf(local, { output, answers, heldOutboxes });
    return {
      seed: options.seed,
      subscriptions: ids.length,
      ...invariants,
      couponsOverRedeemed,
      windowSignups: windows,
      leaks,
      scanned,
      revokedTokens,
      duplicateDeliveries: chaos.duplicateDeliveries,
      overlappingRuns: renewals,
      crashes: chaos.crashCounts(),
      handlerMetrics,
      webhookMetrics,
      webhookSettleHours,
      merchantActions: merchant.counts,
      customerPages: pages.counts,
      refusedDeliveries: stack.eventBridge.refused,
      refusedMails: stack.ses.refused,
      faults,
      reconciliation,
      wallMs: Math.round(performance.now() - started),
    };
  } finally {
    await chaos.close();
    await Promise.all(receivers.map((receiver) => receiver.close()));
  }
}
