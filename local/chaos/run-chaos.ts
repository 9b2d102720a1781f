import { setTimeout as sleep } from "node:timers/promises";
import { parseChargeMessage } from "../../functions/adapters/sqs-charge-queue";
import { pollOnce, receiveBatch } from "../../functions/adapters/sqs-poller";
import { addMonthsClamped, billingPeriod } from "../../functions/core/billing-period";
import { processChargeMessage } from "../../functions/core/charge-engine";
import { DEFAULT_CHARGE_POLICY } from "../../functions/core/charge-policy";
import { runChargeRun } from "../../functions/core/charge-run";
import { runJanitor } from "../../functions/core/janitor";
import type { Plan, Subscription } from "../../functions/core/model";
import type { ChargeMessage, ChargeQueue } from "../../functions/core/ports";
import { signUpWithCard } from "../../functions/core/signup";
import { mapConcurrently } from "../../functions/shared/map-concurrently";
import type { FaultCounts } from "../../sandbox/faults";
import { TEST_MERCHANT } from "../../sandbox/merchant-config";
import { createPrng, deriveSeed } from "../../sandbox/prng";
import type { BillingStack } from "../billing-stack";
import { CrashInjector, type CrashPoint, SimulatedCrash } from "../crash-injection";
import { compareLedgers } from "../ledger-comparison";
import { LocalStack } from "../local-stack";
import { approximateMessageCount } from "../sqs-emulator";

// The chaos run (DESIGN.md §4 under fire): subscriptions renewed month after month on the local runtime while the
// sandbox injects 5xx, timeouts after commit, latency spikes, duplicate callbacks and out-of-order webhooks; every
// charge message is delivered twice and two charge runs overlap; workers die between every step of the charge
// protocol and inside the janitor; tokens are revoked in the middle of a run. At the end: no period charged twice,
// none lost, our ledger equal to the gateway's, every dead letter explained.

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

export interface ChaosReport {
  readonly seed: number;
  readonly subscriptions: number;
  readonly periodsDue: number;
  readonly charged: number;
  readonly declined: number;
  readonly pastDue: number;
  readonly canceled: number;
  readonly revokedTokens: number;
  readonly duplicateDeliveries: number;
  readonly overlappingRuns: number;
  readonly crashes: Readonly<Record<CrashPoint, number>>;
  readonly faults: Readonly<FaultCounts>;
  readonly doubleCharges: readonly string[];
  readonly lostPeriods: readonly string[];
  readonly mismatches: readonly string[];
  readonly deadLetters: { readonly explained: readonly string[]; readonly unexplained: readonly string[] };
  readonly wallMs: number;
}

const START = new Date("2027-01-10T08:00:00.000Z");
const MONTHLY: Plan = { amount: "19.90", currency: "USD", interval_months: 1 };
const APPROVING_CARD = "4111111111111111";
/** Approves the sign-up, declines every REBILL: walks the dunning schedule to cancellation. */
const DECLINING_ON_REBILL_CARD = "4000000000000341";
/** Sign-ups are spread over a day in these batches, so renewals fall in several charge runs. */
const SIGNUP_BATCH_SPACING_MS = 8 * 3_600_000;
const SIGNUP_BATCHES = 3;
const SETTLE_ROUNDS = 30;

/** The faults of the chaos run (sandbox/faults.ts), on every route. */
export const CHAOS_FAULTS = {
  errorRate: 0.1,
  timeoutAfterCommitRate: 0.05,
  latencyJitterMs: 60,
  duplicateStatusUrlRate: 0.5,
  outOfOrderWebhookRate: 0.5,
};

export function violationsOf(
  report: Pick<ChaosReport, "doubleCharges" | "lostPeriods" | "mismatches" | "deadLetters">,
): string[] {
  return [
    ...report.doubleCharges.map((period) => `double charge: ${period}`),
    ...report.lostPeriods.map((line) => `lost period: ${line}`),
    ...report.mismatches.map((line) => `ledger mismatch: ${line}`),
    ...report.deadLetters.unexplained.map((line) => `unexplained dead letter: ${line}`),
  ];
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = performance.now();
  const renewals = options.renewals ?? 3;
  const progress = options.onProgress ?? (() => undefined);
  const random = createPrng(deriveSeed(options.seed, "chaos"));
  // The real handlers take the gateway's callbacks and webhooks (status_url, chargebacks) through the intake queue;
  // the charge queue, the charge runs and the janitor are driven here, with crashes injected.
  const local = await LocalStack.start({
    port: 0,
    sandboxPort: 0,
    realTime: false,
    schedules: false,
    chargeWorker: false,
    start: START,
    seed: options.seed,
    // A lost answer costs the worker this long; latency spikes beyond it become unknown outcomes too.
    gatewayTimeoutMs: 300,
    // A crashed worker's message comes back after a second, a retry after 1–2 s (real time).
    visibilityTimeoutSeconds: 1,
    policy: { retryBaseSeconds: 1, retryMaxSeconds: 2 },
  });
  const { stack } = local;
  try {
    const count = Math.max(1, Math.ceil(options.size / (renewals + 1)));
    const ids = await signUp(stack, count, () => random.next(), progress);
    stack.sandbox.faults.configure({ global: CHAOS_FAULTS });
    const crashes = new CrashInjector(() => random.next(), options.crashRate ?? 0.01);
    let duplicateDeliveries = 0;
    const duplicating: ChargeQueue = {
      async send(messages) {
        await stack.services.queue.send([...messages, ...messages]);
        duplicateDeliveries += messages.length;
      },
    };
    const settle = () => settleEverything(stack, crashes, duplicating, options.workers ?? 4);
    let revokedTokens = 0;
    const lastAnchor = new Date(START.getTime() + (SIGNUP_BATCHES - 1) * SIGNUP_BATCH_SPACING_MS);
    for (let renewal = 1; renewal <= renewals; renewal += 1) {
      progress(`renewal ${renewal} of ${renewals}`);
      await stack.clock.set(new Date(addMonthsClamped(lastAnchor, renewal).getTime() + 60_000));
      const runs = Promise.all([0, 1].map(() => runChargeRun({ ...stack.services, queue: duplicating })));
      // Mid-run, some customers' tokens are revoked at the gateway: those renewals go to past_due.
      if (renewal === 2) revokedTokens = await revokeSomeTokens(stack, ids, () => random.next());
      await runs;
      await settle();
    }
    // Dunning: a charge run each day until the last retry of the schedule (1, 3, 5, 7 days) is behind us.
    const dunningDays = DEFAULT_CHARGE_POLICY.dunningScheduleDays.reduce((sum, days) => sum + days, 0) + 1;
    for (let day = 1; day <= dunningDays; day += 1) {
      progress(`dunning day ${day} of ${dunningDays}`);
      await stack.clock.advance("P1D");
      await runChargeRun({ ...stack.services, queue: duplicating });
      await settle();
    }
    progress("checking");
    return {
      seed: options.seed,
      subscriptions: ids.length,
      ...(await checkInvariants(stack, ids)),
      revokedTokens,
      duplicateDeliveries,
      overlappingRuns: renewals,
      crashes: { ...crashes.counts },
      faults: stack.sandbox.faults.counters().total,
      wallMs: Math.round(performance.now() - started),
    };
  } finally {
    await local.close();
  }
}

/** Sign-ups without faults (their own exactly-once is tested elsewhere); one in twenty declines every REBILL. */
async function signUp(
  stack: BillingStack,
  count: number,
  random: () => number,
  progress: (step: string) => void,
): Promise<string[]> {
  const ids: string[] = [];
  // The charge workers' short gateway timeout is for speed; a sign-up on a busy machine may need longer.
  const patient = stack.servicesFor(5_000);
  const perBatch = Math.ceil(count / SIGNUP_BATCHES);
  for (let batch = 0; batch < SIGNUP_BATCHES && ids.length < count; batch += 1) {
    await stack.clock.set(new Date(START.getTime() + batch * SIGNUP_BATCH_SPACING_MS));
    const size = Math.min(perBatch, count - ids.length);
    const cards = Array.from({ length: size }, () =>
      random() < 0.05 ? DECLINING_ON_REBILL_CARD : APPROVING_CARD,
    );
    const signups = await mapConcurrently(cards, 16, (number, index) =>
      signUpWithCard(
        {
          customer: {
            name: `Chaos customer ${ids.length + index}`,
            email: `chaos${ids.length + index}@example.com`,
          },
          plan: MONTHLY,
          billing: "token",
          card: { number, expiry: "203012", cvc: "123" },
        },
        patient,
      ),
    );
    for (const signup of signups) {
      if (signup.kind !== "active") throw new Error(`a fault-free sign-up ended ${signup.kind}`);
      ids.push(signup.subscription.subscription_id);
    }
    progress(`signed up ${ids.length} of ${count}`);
  }
  return ids;
}

async function revokeSomeTokens(
  stack: BillingStack,
  ids: readonly string[],
  random: () => number,
): Promise<number> {
  let revoked = 0;
  for (const id of ids) {
    if (random() >= 0.01) continue;
    const tokenId = (await stack.services.repository.getSubscription(id))?.token_id;
    if (tokenId === undefined) continue;
    stack.sandbox.state.tokens.setStatus(TEST_MERCHANT.mid, tokenId, "revoked", stack.clock.now());
    revoked += 1;
  }
  return revoked;
}

/**
 * Workers drain the queue (crashing as they go), then time passes beyond the in-flight window and the janitor sweeps
 * (crashing too, and run again as the next schedule would): until nothing is open and nothing is queued.
 */
async function settleEverything(
  stack: BillingStack,
  crashes: CrashInjector,
  queue: ChargeQueue,
  workers: number,
): Promise<void> {
  const chargeDeps = crashes.chargeDeps(stack.services);
  const janitorDeps = crashes.janitorDeps({ ...stack.services, queue });
  for (let round = 0; round < SETTLE_ROUNDS; round += 1) {
    await Promise.all(
      Array.from({ length: workers }, () =>
        drainWaitingForInFlight(stack, (message, receiveCount) =>
          processChargeMessage(message, receiveCount, chargeDeps),
        ),
      ),
    );
    await stack.clock.advance(DEFAULT_CHARGE_POLICY.inflightWindowMs + 60_000);
    let open = 0;
    for (;;) {
      try {
        open = (await runJanitor(janitorDeps)).examined;
        break;
      } catch (error) {
        if (!(error instanceof SimulatedCrash)) throw error;
      }
    }
    const queued = await approximateMessageCount(stack.sqs.client, stack.chargeQueue.queueUrl);
    if (open === 0 && queued === 0) return;
  }
}

/** Polls until the queue holds nothing at all, waiting out messages that are invisible (crashed, retrying). */
async function drainWaitingForInFlight(
  stack: BillingStack,
  handler: (message: ChargeMessage, receiveCount: number) => ReturnType<typeof processChargeMessage>,
): Promise<void> {
  for (;;) {
    const poll = await pollOnce({
      client: stack.sqs.client,
      queueUrl: stack.chargeQueue.queueUrl,
      parse: parseChargeMessage,
      handler,
    });
    if (poll.results.length > 0) continue;
    if ((await approximateMessageCount(stack.sqs.client, stack.chargeQueue.queueUrl)) === 0) return;
    await sleep(100);
  }
}

async function checkInvariants(stack: BillingStack, ids: readonly string[]) {
  const comparison = await compareLedgers(stack, ids);
  const now = stack.clock.now();
  const subscriptions = await mapConcurrently(ids, 8, (id) => stack.services.repository.getSubscription(id));
  const lostPeriods: string[] = [];
  let periodsDue = 0;
  let pastDue = 0;
  let canceled = 0;
  for (const [index, subscription] of subscriptions.entries()) {
    if (subscription === undefined) {
      lostPeriods.push(`${ids[index]}: subscription missing`);
      continue;
    }
    const due = periodsStartedBy(subscription, now);
    periodsDue += due;
    if (subscription.status === "canceled") canceled += 1;
    if (subscription.status === "past_due") pastDue += 1;
    const lost = lostPeriodOf(subscription, due);
    if (lost !== undefined) lostPeriods.push(lost);
  }
  const attempts = (await mapConcurrently(ids, 8, (id) => stack.services.repository.listAttempts(id))).flat();
  return {
    periodsDue,
    charged: comparison.ours.succeeded,
    declined: attempts.filter((attempt) => attempt.status === "declined").length,
    pastDue,
    canceled,
    doubleCharges: comparison.doubleCharges,
    lostPeriods,
    mismatches: comparison.mismatches,
    deadLetters: await explainDeadLetters(stack),
  };
}

/** Periods whose start is at or before `now`: each must be paid, or the subscription in dunning with a reason. */
export function periodsStartedBy(subscription: Subscription, now: Date): number {
  const anchor = new Date(subscription.anchor_at);
  let periods = 0;
  while (billingPeriod(anchor, subscription.plan.interval_months, periods).start <= now) periods += 1;
  return periods;
}

export function lostPeriodOf(subscription: Subscription, due: number): string | undefined {
  const { subscription_id: id, status, period } = subscription;
  if (status === "active" && period < due) return `${id}: period ${period} due, still active and unpaid`;
  if (status === "past_due" && subscription.status_reason === undefined && subscription.dunning === undefined)
    return `${id}: past_due without a reason`;
  if (status === "canceled" && subscription.status_reason === undefined)
    return `${id}: canceled without a reason`;
  if (status === "pending") return `${id}: still pending`;
  return undefined;
}

/** Each message of the DLQ with why it is there; one that still stands for unpaid, undunned work is unexplained. */
async function explainDeadLetters(stack: BillingStack) {
  const explained: string[] = [];
  const unexplained: string[] = [];
  for (;;) {
    const records = await receiveBatch(stack.sqs.client, stack.chargeQueue.dlqUrl);
    if (records.length === 0) break;
    for (const record of records) {
      let message: ReturnType<typeof parseChargeMessage>;
      try {
        message = parseChargeMessage(record.body);
      } catch {
        unexplained.push(`${record.messageId}: not a charge message`);
        continue;
      }
      const subscription = await stack.services.repository.getSubscription(message.subscription_id);
      const what = `${message.subscription_id}/${message.period}`;
      if (subscription === undefined) unexplained.push(`${what}: no such subscription`);
      else if (subscription.period > message.period) explained.push(`${what}: already paid (a duplicate)`);
      else if (subscription.status !== "active")
        explained.push(`${what}: ${subscription.status}, in dunning`);
      else unexplained.push(`${what}: due and unpaid`);
    }
  }
  return { explained, unexplained };
}
