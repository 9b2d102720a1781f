import { setTimeout as sleep } from "node:timers/promises";
import { QueryCommand } from "@aws-sdk/lib-dynamodb";
import { z } from "zod";
import {
  recordOf,
  WEBHOOK_DELIVERY_SK_PREFIX,
  webhookDeliveryPartition,
} from "../../functions/adapters/billing-table";
import { dynamoDbDocumentClientOf } from "../../functions/adapters/dynamodb-client";
import { receiveBatch } from "../../functions/adapters/sqs-poller";
import { checkoutView, subscriptionView } from "../../functions/api/merchant-api-views";
import { chargeQueue } from "../../functions/composition/components";
import { addMonthsClamped, periodStartOf } from "../../functions/core/base/billing-period";
import { DEFAULT_CHARGE_POLICY } from "../../functions/core/base/charge-policy";
import { outboxEventSchema } from "../../functions/core/base/events";
import type { Plan, Subscription } from "../../functions/core/base/model";
import { attemptKeyOf } from "../../functions/core/base/order-id";
import { parseChargeMessage } from "../../functions/core/ports/queues";
import {
  WEBHOOK_EVENT_TYPES,
  type WebhookDelivery,
  webhookDeliverySchema,
} from "../../functions/core/ports/webhook-ports";
import { mapConcurrently } from "../../functions/shared/map-concurrently";
import type { FaultCounts } from "../../sandbox/faults/faults";
import { createPrng, deriveSeed } from "../../sandbox/shared/prng";
import { TEST_MERCHANT } from "../../sandbox/state/merchant-config";
import {
  type LeakSource,
  leakSecretsOf,
  outboxSources,
  scanForLeaks,
  stackLeakSources,
} from "../audit/leak-scan";
import { compareLedgers } from "../audit/ledger-comparison";
import { auditStackMoney, type MoneyAudit } from "../audit/money-audit";
import { type RealFormCounts, realFormCounts } from "../audit/real-forms";
import { approximateMessageCount } from "../aws/sqs-emulator";
import { MerchantClient } from "../clients/merchant-client";
import { sandboxControl } from "../clients/sandbox-controls";
import { deliverBatch } from "../lambda/event-source-mapping";
import { scheduledEvent } from "../lambda/lambda-context";
import { LambdaFunctions } from "../lambda/lambda-functions";
import { pendingOutboxContents, pendingOutboxes } from "../lambda/pending-outboxes";
import { receiveLambdaEvent } from "../lambda/sqs-lambda-event";
import type { LocalTableStream } from "../lambda/table-stream";
import { type BillingStack, LOCAL_GATEWAY_TUNING } from "../stack/billing-stack";
import {
  type AnyDecoration,
  CrashInjector,
  type CrashPoint,
  decoratedComposition,
  decoration,
  isSimulatedCrash,
} from "../stack/crash-injection";
import { LocalStack } from "../stack/local-stack";
import { type CustomerPageCounts, CustomerPages } from "./customer-pages";
import { accountForEvents, type EventAccount } from "./event-accounting";
import { accountForMails, type MailAccount } from "./mail-accounting";
import { type MerchantActionCounts, MerchantActions, pastDue } from "./merchant-actions";
import { accountForWebhooks, type ReceiverLog, type WebhookAccount } from "./webhook-accounting";
import { type ReceiverSpec, startWebhookReceiver, type WebhookReceiver } from "./webhook-receivers";

// The chaos run (README, Proof under fire): subscriptions renewed month after month on the local runtime while the
// sandbox injects 5xx, timeouts after commit, latency spikes, duplicate callbacks and out-of-order webhooks; every
// charge message is delivered twice and two charge runs overlap; workers die between every step of the charge
// protocol and inside the attempt sweep; tokens are revoked in the middle of a run; event delivery dies between the
// bus taking events and their outbox being marked, and the bus is down for a whole renewal; the merchant cancels,
// pauses, resumes and gives new cards while the workers charge the same subscriptions; the SaaS's webhook receivers
// answer 500/503 or hang at random. At the end: no period charged twice, none lost, our ledger equal to the
// gateway's, every dead letter explained, every event delivered — to the bus, and to every webhook endpoint.

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
  /**
   * What the handlers' own metrics (their EMF records) counted: charges made, and charge messages that failed —
   * the crashes, met inside process-charges and its middleware.
   */
  readonly handlerMetrics: { readonly chargesSucceeded: number; readonly messagesFailed: number };
  /** The merchant's requests racing the charge runs. */
  readonly merchantActions: MerchantActionCounts;
  /** The customers' own pages: hosted checkouts and the portal. */
  readonly customerPages: CustomerPageCounts;
  /** Checkouts still pending after their end (each a violation: the sweep must have closed them). */
  readonly checkoutsLeftPending: readonly string[];
  readonly faults: Readonly<FaultCounts>;
  /** The real gateway's own forms the run met. */
  readonly realForms: RealFormCounts;
  readonly doubleCharges: readonly string[];
  readonly lostPeriods: readonly string[];
  readonly mismatches: readonly string[];
  readonly deadLetters: { readonly explained: readonly string[]; readonly unexplained: readonly string[] };
  /** Window sign-ups (status_url callbacks, duplicated by the faults). */
  readonly windowSignups: number;
  /** Charges the sandbox charged back (each announced by a signed webhook, some out of order). */
  readonly chargebacks: number;
  /** Chargebacks at the gateway not recorded here at their latest status (each a violation). */
  readonly unrecordedChargebacks: readonly string[];
  /** Canceled subscriptions whose token is still active at the gateway (each a violation). */
  readonly liveTokens: readonly string[];
  /** The events the bus received, held against the ledger and the subscriptions. */
  readonly events: EventAccount;
  /** Every sale and refund the gateway made, held against the ledger. */
  readonly money: MoneyAudit;
  /** Event deliveries the bus refused while it was down. */
  readonly refusedDeliveries: number;
  /** The customer mails, held against the events that call for them. */
  readonly mails: MailAccount;
  /** Sends the mail service refused (throttled), each retried by the bus. */
  readonly refusedMails: number;
  /** Our webhooks, held against the bus's events, as the SaaS's receivers took them. */
  readonly webhooks: WebhookAccount;
  /** What send-webhooks' own metrics counted. */
  readonly webhookMetrics: {
    readonly delivered: number;
    readonly attemptsFailed: number;
    readonly deliveriesFailed: number;
  };
  /** Hours the clock ran on after the last step until every webhook retry had its turn. */
  readonly webhookSettleHours: number;
  /**
   * Card numbers, CVCs, keys or JWTs found in logs, table items, outboxes, queues, events or answers (each a
   * violation).
   */
  readonly leaks: readonly string[];
  /** Places the leak scan read. */
  readonly scanned: number;
  readonly wallMs: number;
}

const START = new Date("2027-01-10T08:00:00.000Z");
const MONTHLY: Plan = { amount: "19.90", currency: "USD", interval_months: 1 };
const APPROVING_CARD = "4111111111111111";
/** Approves the sign-up, declines every REBILL: walks the dunning schedule to cancellation. */
const DECLINING_ON_REBILL_CARD = "4000000000000341";
/** Approves; a signed CHARGEBACK webhook follows each payment a day later. */
const CHARGEBACK_CARD = "4000000000000259";
const CARD_EXPIRY = "203012";
const CARD_CVC = "123";
/** What customers type in a window: a card that pays, and one refused for insufficient funds. */
const WINDOW_CARDS = {
  approving: APPROVING_CARD,
  refused: "4000000000009995",
  expiry: CARD_EXPIRY,
  cvc: CARD_CVC,
};
/** Sign-ups are spread over a day in these batches, so renewals fall in several charge runs. */
const SIGNUP_BATCH_SPACING_MS = 8 * 3_600_000;
const SIGNUP_BATCHES = 3;
const SETTLE_ROUNDS = 30;
/** A lost answer costs a worker this long; latency spikes beyond it become unknown outcomes too. */
const CHAOS_GATEWAY_TIMEOUT_MS = 300;
/** The share of mail sends the mail service refuses (throttled). */
const MAIL_REFUSAL_RATE = 0.05;
/** Records per process-charges batch (the function table's batch size). */
const WORKER_BATCH_SIZE = 10;
/** The merchant client's first retry delay (up to 20 times it between its 10 retries). */
const MERCHANT_RETRY_DELAY_MS = 150;
/** Records per publish-events batch (100 when deployed): smaller batches, more deliveries that can crash. */
const DELIVERY_BATCH_SIZE = 10;
/**
 * send-webhooks' patience with an endpoint (10 s deployed): a hang costs its batch this long. The event loop this
 * process shares with everything else now and then answers later than this: a retry and a copy, nothing worse.
 */
const CHAOS_WEBHOOK_TIMEOUT_MS = 500;
/** The retry window (3 days) in hours: the clock runs on at most this long for the last retries. */
const WEBHOOK_SETTLE_HOURS = 72;
/** Longer than the delivery queue's visibility timeout (30 s), which runs in real time. */
const WEBHOOK_SETTLE_REAL_MS = 40_000;

/** Charges, refunds and chargebacks: what a SaaS's bookkeeping takes. The rest: subscriptions and cards. */
const MONEY_EVENT_TYPES = WEBHOOK_EVENT_TYPES.filter((type) => /^(charge|refund|chargeback)\./.test(type));

/**
 * The SaaS's webhook endpoints: its bookkeeping takes the money events and answers 30 % of the requests with a 500
 * or 503; its account service takes every other type and holds 10 % without an answer until the sender gives up —
 * between them every event on the bus goes through an endpoint that fails; and a healthy one takes the events that
 * grant or take away access. Each delivery costs this one process four table requests and a POST: with both failing
 * endpoints taking every type, a run of 2,000 periods took 67 % longer.
 */
export const CHAOS_WEBHOOK_RECEIVERS: readonly ReceiverSpec[] = [
  { name: "flaky", events: MONEY_EVENT_TYPES, errorRate: 0.3 },
  {
    name: "hanging",
    events: WEBHOOK_EVENT_TYPES.filter((type) => !MONEY_EVENT_TYPES.includes(type)),
    hangRate: 0.1,
  },
  {
    name: "healthy",
    events: [
      "subscription.activated",
      "subscription.past_due",
      "subscription.canceled",
      "subscription.paused",
      "subscription.resumed",
    ],
  },
];

/**
 * The money path's faults (sandbox/faults/faults.ts): on REBILL, card payments, refunds, the attempt sweep's retrieve
 * and token deletion — 503s, the gateway's own internal errors (EM00, EX1000), lost answers, 500s after commit and
 * latency.
 */
const CHARGE_ROUTE_FAULTS = {
  errorRate: 0.1,
  internalErrorRate: 0.03,
  timeoutAfterCommitRate: 0.05,
  errorAfterCommitRate: 0.03,
  latencyJitterMs: 60,
};

/**
 * The faults of the chaos run: failures and latency spikes on the charge path, duplicate status_url calls and
 * out-of-order webhooks on every delivery. The window sign-ups' own calls (ready, verify) stay clean: their
 * exactly-once under faults is the sign-up tests' subject, here they bring the callbacks.
 */
export const CHAOS_FAULTS = {
  global: { duplicateStatusUrlRate: 0.5, outOfOrderWebhookRate: 0.5, mixedCallbackFormRate: 0.5 },
  routes: {
    "payments.tokenbilling.rebill": CHARGE_ROUTE_FAULTS,
    "payments.tokenbilling.delete": CHARGE_ROUTE_FAULTS,
    "payments.retrieve": CHARGE_ROUTE_FAULTS,
    "payments.payment": CHARGE_ROUTE_FAULTS,
    "payments.cancel": CHARGE_ROUTE_FAULTS,
  },
};

export function violationsOf(
  report: Pick<
    ChaosReport,
    | "doubleCharges"
    | "lostPeriods"
    | "mismatches"
    | "deadLetters"
    | "unrecordedChargebacks"
    | "liveTokens"
    | "checkoutsLeftPending"
    | "leaks"
    | "events"
    | "money"
    | "mails"
    | "webhooks"
  >,
): string[] {
  const { events, money, mails, webhooks } = report;
  return [
    ...report.doubleCharges.map((period) => `double charge: ${period}`),
    ...report.lostPeriods.map((line) => `lost period: ${line}`),
    ...report.mismatches.map((line) => `ledger mismatch: ${line}`),
    ...report.deadLetters.unexplained.map((line) => `unexplained dead letter: ${line}`),
    ...report.unrecordedChargebacks.map((line) => `chargeback not recorded: ${line}`),
    ...report.liveTokens.map((line) => `live token: ${line}`),
    ...report.checkoutsLeftPending.map((line) => `checkout left pending past its end: ${line}`),
    ...money.refundMismatches.map((line) => `refund mismatch: ${line}`),
    ...money.openRefunds.map((line) => `refund left open: ${line}`),
    ...money.transactionsCreditedTwice.map((line) => `transaction credited twice: ${line}`),
    ...money.salesKeptAfterCancel.map((line) => `sale kept after a cancel: ${line}`),
    ...money.prorationMismatches.map((line) => `proration: ${line}`),
    ...report.leaks.map((line) => `leak: ${line}`),
    ...events.lost.map((line) => `lost event: ${line}`),
    ...events.inconsistent.map((line) => `event copies differ: ${line}`),
    ...events.misordered.map((line) => `event out of order: ${line}`),
    ...(events.undelivered > 0 ? [`${events.undelivered} event(s) never left their outbox`] : []),
    ...mails.sentTwice.map((line) => `mail sent twice: ${line}`),
    ...mails.lost.map((line) => `mail lost: ${line}`),
    ...webhooks.lost.map((line) => `webhook lost: ${line}`),
    ...webhooks.bad.map((line) => `bad webhook: ${line}`),
    ...webhooks.unsettled.map((line) => `webhook unsettled: ${line}`),
  ];
}

export async function runChaos(options: ChaosOptions): Promise<ChaosReport> {
  const started = performance.now();
  const renewals = options.renewals ?? 3;
  const progress = options.onProgress ?? (() => undefined);
  const random = createPrng(deriveSeed(options.seed, "chaos"));
  // Our webhooks' functions die too: queue-webhooks once it queued its deliveries (the bus tries it again),
  // send-webhooks once an endpoint took a delivery (its message comes back). A stream of their own, as below.
  const webhookCrashes = new CrashInjector(
    createPrng(deriveSeed(options.seed, "chaos-webhooks")).next,
    options.crashRate ?? 0.01,
  );
  // The real handlers take the gateway's callbacks and webhooks (status_url, chargebacks) through the intake queue;
  // the charge runs, the charge queue's worker, the attempt sweep and the table stream's publish-events are invoked
  // here, each through its own row of the function table over a composition whose services crash (crash-injection.ts).
  const local = await LocalStack.start({
    port: 0,
    sandboxPort: 0,
    realTime: false,
    schedules: false,
    chargeWorker: false,
    start: START,
    seed: options.seed,
    gatewayTimeoutMs: CHAOS_GATEWAY_TIMEOUT_MS,
    // A crashed worker's message comes back after a second, a retry after 1–2 s (real time).
    visibilityTimeoutSeconds: 1,
    policy: { retryBaseSeconds: 1, retryMaxSeconds: 2 },
    eventStream: false,
    webhookTimeoutMs: CHAOS_WEBHOOK_TIMEOUT_MS,
    decorations: webhookCrashes.webhooks(),
    // A simulated crash is the run's own doing: its message comes back; anything else is a failure to show.
    onError: (where, error) => {
      if (!isSimulatedCrash(error)) console.error(`local stack: ${where} failed:`, error);
    },
  });
  const { stack } = local;
  // The mail service throttles now and then: the bus's retries of notify-customer must still send each mail once.
  const mailRefusals = createPrng(deriveSeed(options.seed, "chaos-mail"));
  stack.ses.refusal = () =>
    mailRefusals.next() < MAIL_REFUSAL_RATE ? "TooManyRequestsException" : undefined;
  const output = captureJsonOutput();
  // The table stream's deliveries, through publish-events, die after the bus took a record's events, before their
  // outbox is marked: those are published again, under the same event_ids. A stream of its own keeps the charge
  // workers' crashes on their seeded course whatever the polls' timing.
  const deliveryCrashes = new CrashInjector(
    createPrng(deriveSeed(options.seed, "chaos-delivery")).next,
    options.crashRate ?? 0.01,
  );
  const chaosTuning = { ...LOCAL_GATEWAY_TUNING, gatewayTimeoutMs: CHAOS_GATEWAY_TIMEOUT_MS };
  const functionsWith = (...decorations: AnyDecoration[]) =>
    new LambdaFunctions(decoratedComposition(stack.compose(chaosTuning), decorations));
  // A failed delivery leaves its outbox pending for the next poll; what never got out is counted at the end.
  const delivery = stack.tableStream({
    functions: functionsWith(...deliveryCrashes.delivery()),
    batchSize: DELIVERY_BATCH_SIZE,
  });
  delivery.start();
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
      receivers.push(await startWebhookReceiver(spec, client, draws.next, () => stack.clock.now()));
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
    const crashes = new CrashInjector(() => random.next(), options.crashRate ?? 0.01);
    const merchant = new MerchantActions(client, () => random.next(), answers);
    let duplicateDeliveries = 0;
    // Every charge message is sent twice (the charge runs', the sweep's), as at-least-once delivery may.
    const duplicating = decoration(chargeQueue, (queue) => ({
      ...queue,
      async send(messages) {
        await queue.send([...messages, ...messages]);
        duplicateDeliveries += messages.length;
      },
    }));
    const chaosFunctions = {
      chargeRun: functionsWith(duplicating),
      worker: functionsWith(...crashes.chargeWorker()),
      attemptSweep: functionsWith(...crashes.attemptSweep(), duplicating),
    };
    const chargeRun = () =>
      chaosFunctions.chargeRun.invoke("run-charges", scheduledEvent(stack.clock.now().toISOString()));
    const settle = () => settleEverything(local, chaosFunctions, options.workers ?? 4);
    let revokedTokens = 0;
    let heldOutboxes: LeakSource[] = [];
    const lastAnchor = new Date(START.getTime() + (SIGNUP_BATCHES - 1) * SIGNUP_BATCH_SPACING_MS);
    for (let renewal = 1; renewal <= renewals; renewal += 1) {
      progress(`renewal ${renewal} of ${renewals}`);
      await local.setClock(new Date(addMonthsClamped(lastAnchor, renewal).getTime() + 60_000));
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
    // A webhook the out-of-order fault still holds would never be sent: the gateway's re-sends stand in for it.
    await stack.sandbox.deliveries.flushHeld();
    await stack.sandbox.deliveries.settled();
    await local.advanceClock("PT0S");
    await deliverAll(delivery, stack);
    const webhookSettleHours = await settleWebhooks(local, delivery);
    await delivery.stop();
    // What the bus's rules started (the customer mails) runs to its end.
    await stack.eventBridge.settled();
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
    output.stop();
    const handlerMetrics = {
      chargesSucceeded: emfTotal(output.lines(), "ChargeSucceeded"),
      messagesFailed: emfTotal(output.lines(), "ChargeMessagesFailed"),
    };
    const webhookMetrics = {
      delivered: emfTotal(output.lines(), "WebhooksDelivered"),
      attemptsFailed: emfTotal(output.lines(), "WebhookAttemptsFailed"),
      deliveriesFailed: emfTotal(output.lines(), "WebhookDeliveriesFailed"),
    };
    const sources = [
      ...(await stackLeakSources(stack, { output: output.text(), httpBodies: answers })),
      ...heldOutboxes,
    ];
    const secrets = leakSecretsOf(TEST_MERCHANT, { merchantApiKeys: [local.apiKey], cvcs: [CARD_CVC] });
    const leaks = scanForLeaks(sources, secrets).map((hit) => `${hit.what} in ${hit.where}`);
    return {
      seed: options.seed,
      subscriptions: ids.length,
      ...invariants,
      windowSignups: windows,
      leaks,
      scanned: sources.length,
      revokedTokens,
      duplicateDeliveries,
      overlappingRuns: renewals,
      crashes: {
        ...crashes.counts,
        afterPublish: deliveryCrashes.counts.afterPublish,
        afterFanOut: webhookCrashes.counts.afterFanOut,
        afterWebhookPost: webhookCrashes.counts.afterWebhookPost,
      },
      handlerMetrics,
      webhookMetrics,
      webhookSettleHours,
      merchantActions: merchant.counts,
      customerPages: pages.counts,
      refusedDeliveries: stack.eventBridge.refused,
      refusedMails: stack.ses.refused,
      faults: stack.sandbox.faults.counters().total,
      wallMs: Math.round(performance.now() - started),
    };
  } finally {
    output.stop();
    await delivery.stop();
    await local.close();
    await Promise.all(receivers.map((receiver) => receiver.close()));
  }
}

/**
 * The webhooks' retries wait on the local clock (1 minute, doubling): the clock runs on an hour at a time, each
 * retry made at its own time and what it brings delivered, until nothing is left on the delivery queue — at most
 * the retry window; then, for a little real time, what a failed invocation left to come back after the queue's
 * visibility timeout (real seconds). Answers the hours the clock ran on.
 */
async function settleWebhooks(local: LocalStack, delivery: LocalTableStream): Promise<number> {
  const { stack } = local;
  const deadline = performance.now() + WEBHOOK_SETTLE_REAL_MS;
  for (let hours = 0; ; ) {
    await deliverAll(delivery, stack);
    await stack.eventBridge.settled();
    await local.advanceClock("PT0S");
    const left = await approximateMessageCount(stack.sqs.client, stack.webhookQueue.queueUrl);
    if (left === 0) return hours;
    if (hours < WEBHOOK_SETTLE_HOURS) {
      await local.advanceClock("PT1H");
      hours += 1;
    } else if (performance.now() < deadline) await sleep(1000);
    else return hours;
  }
}

/** Every delivery record of an endpoint (the deliveries route shows the last 50): its partition, page by page. */
async function deliveriesOf(stack: BillingStack, endpointId: string): Promise<WebhookDelivery[]> {
  const client = dynamoDbDocumentClientOf(stack.runtime);
  const deliveries: WebhookDelivery[] = [];
  let start: Record<string, unknown> | undefined;
  do {
    const page = await client.send(
      new QueryCommand({
        TableName: stack.tableName,
        KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
        ExpressionAttributeValues: {
          ":pk": webhookDeliveryPartition(endpointId),
          ":prefix": WEBHOOK_DELIVERY_SK_PREFIX,
        },
        ConsistentRead: true,
        ExclusiveStartKey: start,
      }),
    );
    deliveries.push(...(page.Items ?? []).map((item) => webhookDeliverySchema.parse(recordOf(item))));
    start = page.LastEvaluatedKey;
  } while (start !== undefined);
  return deliveries;
}

/** Delivers until no outbox holds events; a pass that crashed leaves some for the next (a bounded number). */
async function deliverAll(delivery: LocalTableStream, stack: BillingStack): Promise<void> {
  for (let pass = 0; pass < SETTLE_ROUNDS; pass += 1) {
    await delivery.drain();
    if ((await pendingOutboxes(stack.delivery.repository)).length === 0) return;
  }
}

/**
 * Takes the JSON lines the handlers write (logs on stdout and stderr, EMF metrics) off the terminal for the leak
 * scan, leaving every other write alone; stop() puts the streams back.
 */
function captureJsonOutput() {
  const lines: string[] = [];
  const restores = [process.stdout, process.stderr].map((stream) => {
    const write = stream.write.bind(stream);
    stream.write = ((chunk: string | Uint8Array, ...rest: never[]) => {
      const text = typeof chunk === "string" ? chunk : Buffer.from(chunk).toString("utf8");
      if (!text.startsWith("{")) return write(chunk, ...rest);
      lines.push(text);
      return true;
    }) as typeof stream.write;
    return () => {
      stream.write = write;
    };
  });
  return {
    lines: (): readonly string[] => lines,
    text: () => lines.join(""),
    stop: () => {
      for (const restore of restores) restore();
    },
  };
}

/** A metric's sum over the EMF records among captured lines (a write may hold several lines). */
function emfTotal(captured: readonly string[], metric: string): number {
  let total = 0;
  for (const line of captured.flatMap((chunk) => chunk.split("\n"))) {
    if (!line.includes('"_aws"') || !line.includes(`"${metric}"`)) continue;
    const value: unknown = JSON.parse(line)[metric];
    if (typeof value === "number") total += value;
  }
  return total;
}

/**
 * Card sign-ups through the merchant API (POST /v1/subscriptions), before the faults go on (their own exactly-once
 * under faults is the sign-up tests' subject); one in twenty declines every REBILL, one in fifty is charged back
 * after each payment. Their answers join the leak scan.
 */
async function signUp(
  stack: BillingStack,
  client: MerchantClient,
  count: number,
  random: () => number,
  progress: (step: string) => void,
  answers: string[],
): Promise<string[]> {
  const ids: string[] = [];
  const perBatch = Math.ceil(count / SIGNUP_BATCHES);
  for (let batch = 0; batch < SIGNUP_BATCHES && ids.length < count; batch += 1) {
    await stack.clock.set(new Date(START.getTime() + batch * SIGNUP_BATCH_SPACING_MS));
    const size = Math.min(perBatch, count - ids.length);
    const cards = Array.from({ length: size }, () => {
      const draw = random();
      if (draw < 0.05) return DECLINING_ON_REBILL_CARD;
      return draw < 0.07 ? CHARGEBACK_CARD : APPROVING_CARD;
    });
    const signups = await mapConcurrently(cards, 16, (number, index) => {
      const n = ids.length + index;
      return client.post(
        "/v1/subscriptions",
        {
          customer: { name: `Chaos customer ${n}`, email: `chaos${n}@example.com` },
          plan: MONTHLY,
          billing: "token",
          card: { number, expiry: CARD_EXPIRY, cvc: CARD_CVC },
        },
        `chaos-signup-${n}`,
      );
    });
    for (const signup of signups) {
      if (signup.status !== 201) throw new Error(`a fault-free sign-up answered ${signup.status}`);
      answers.push(JSON.stringify(signup.body));
      ids.push(subscriptionView.parse(signup.body).subscription_id);
    }
    progress(`signed up ${ids.length} of ${count}`);
  }
  return ids;
}

/**
 * Sign-ups through the payment window, over HTTP as a merchant's site makes them: a checkout, the customer's card in
 * the window (completed by the sandbox), then status_url — often twice — through the intake queue.
 */
async function signUpThroughWindows(
  local: LocalStack,
  client: MerchantClient,
  count: number,
  answers: string[],
): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const customer = { name: `Window customer ${index}`, email: `window${index}@example.com` };
    const answer = await client.post(
      "/v1/checkouts",
      { customer, plan: MONTHLY, billing: "token" },
      `chaos-window-${index}`,
    );
    answers.push(JSON.stringify(answer.body));
    const checkout = checkoutView.parse(answer.body);
    await sandboxControl(local.sandboxUrl, `/sandbox/windows/${checkout.fgkey}/complete`, {
      card_number: APPROVING_CARD,
      expiry_date: CARD_EXPIRY,
      cvc: CARD_CVC,
    });
    ids.push(checkout.subscription_id);
  }
  // The callbacks are processed from the intake queue: the sign-ups are active once it has drained.
  await local.advanceClock("PT0S");
  return ids;
}

/**
 * The customers' portal during a renewal: the past_due customers the merchant gives no new card (every other one),
 * and a few others cancelling at the period's end.
 */
async function portalActions(
  pages: CustomerPages,
  ids: readonly string[],
  stack: BillingStack,
): Promise<void> {
  const overdue = (await pastDue(stack.services.repository, new Set(ids))).filter(
    (_, index) => index % 2 === 1,
  );
  const overdueSet = new Set(overdue);
  await pages.portal(
    overdue,
    ids.filter((id, index) => index % 40 === 13 && !overdueSet.has(id)),
  );
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
 * Workers drain the queue (crashing as they go), then time passes beyond the in-flight window and the attempt sweep
 * runs (crashing too, and run again as the next schedule would): until nothing is open and nothing is queued.
 */
async function settleEverything(
  local: LocalStack,
  functions: { readonly worker: LambdaFunctions; readonly attemptSweep: LambdaFunctions },
  workers: number,
): Promise<void> {
  const { stack } = local;
  for (let round = 0; round < SETTLE_ROUNDS; round += 1) {
    await Promise.all(
      Array.from({ length: workers }, () => drainWaitingForInFlight(stack, functions.worker)),
    );
    await local.setClock(
      new Date(local.clock.now().getTime() + DEFAULT_CHARGE_POLICY.inflightWindowMs + 60_000),
    );
    let open = 0;
    for (;;) {
      try {
        const swept = attemptSweepReport.parse(
          await functions.attemptSweep.invoke(
            "sweep-attempts",
            scheduledEvent(stack.clock.now().toISOString()),
          ),
        );
        open = swept.examined + swept.refunds.examined;
        break;
      } catch (error) {
        if (!isSimulatedCrash(error)) throw error;
      }
    }
    const queued = await approximateMessageCount(stack.sqs.client, stack.chargeQueue.queueUrl);
    if (open === 0 && queued === 0) return;
  }
}

/** What the chaos run reads of the attempt sweep's answer. */
const attemptSweepReport = z.object({
  examined: z.number(),
  refunds: z.object({ examined: z.number() }),
});

/**
 * As Lambda's event source mapping: batches received from the charge queue, process-charges invoked with each, the
 * records it did not report as failures deleted; until the queue holds nothing at all, waiting out messages that are
 * invisible (crashed, retrying).
 */
async function drainWaitingForInFlight(stack: BillingStack, functions: LambdaFunctions): Promise<void> {
  const { client } = stack.sqs;
  const { queueUrl } = stack.chargeQueue;
  for (;;) {
    const event = await receiveLambdaEvent(client, queueUrl, WORKER_BATCH_SIZE);
    if (event.Records.length > 0) {
      await deliverBatch(client, queueUrl, event, (batch) => functions.invoke("process-charges", batch));
      continue;
    }
    if ((await approximateMessageCount(client, queueUrl)) === 0) return;
    await sleep(100);
  }
}

async function checkInvariants(
  stack: BillingStack,
  ids: readonly string[],
  receivers: readonly ReceiverLog[],
) {
  const comparison = await compareLedgers(stack, ids);
  const now = stack.clock.now();
  const subscriptions = await mapConcurrently(ids, 8, (id) => stack.services.repository.getSubscription(id));
  const lostPeriods: string[] = [];
  const checkoutsLeftPending: string[] = [];
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
    const end = subscription.checkout_expires_at;
    if (subscription.status === "pending" && end !== undefined && Date.parse(end) < now.getTime())
      checkoutsLeftPending.push(`${subscription.subscription_id}: pending, its checkout ended ${end}`);
  }
  const attempts = (await mapConcurrently(ids, 8, (id) => stack.services.repository.listAttempts(id))).flat();
  const byOrder = new Map(attempts.map((attempt) => [attempt.order_id, attempt]));
  const ours = new Set(ids);
  const chargedBack = [...stack.sandbox.state.payments.payments()].filter(
    (payment) =>
      payment.chargeback !== undefined && ours.has(attemptKeyOf(payment.orderId)?.subscription_id ?? ""),
  );
  const undelivered = (await pendingOutboxContents(stack.delivery.repository)).reduce(
    (sum, { events }) => sum + events.length,
    0,
  );
  const delivered = stack.eventBridge.entries.map((entry) =>
    outboxEventSchema.parse(JSON.parse(entry.Detail)),
  );
  return {
    money: await auditStackMoney(stack, ids, delivered),
    events: accountForEvents({
      details: stack.eventBridge.entries.map((entry) => entry.Detail),
      subscriptions: subscriptions.filter((subscription) => subscription !== undefined),
      attempts,
      undelivered,
    }),
    mails: accountForMails({
      details: stack.eventBridge.entries.map((entry) => entry.Detail),
      mails: stack.ses.mails,
      attempts,
      subscriptions: subscriptions.filter((subscription) => subscription !== undefined),
      deadLetters: stack.eventBridge.deadLetters.map(
        ({ event }) => outboxEventSchema.parse(event.detail).event_id,
      ),
    }),
    webhooks: accountForWebhooks({
      details: stack.eventBridge.entries.map((entry) => entry.Detail),
      receivers,
      deliveries: (
        await Promise.all(receivers.map((receiver) => deliveriesOf(stack, receiver.endpointId)))
      ).flat(),
      queued: await approximateMessageCount(stack.sqs.client, stack.webhookQueue.queueUrl),
      deadLetters: await approximateMessageCount(stack.sqs.client, stack.webhookQueue.dlqUrl),
      fanOutsGivenUp: stack.eventBridge.deadLetters
        .filter(({ rule }) => rule === "queue-webhooks")
        .map(({ event }) => outboxEventSchema.parse(event.detail).event_id),
    }),
    chargebacks: chargedBack.length,
    // Each chargeback must be recorded here at the status the gateway last reported (reported, then deducted).
    unrecordedChargebacks: chargedBack
      .filter((payment) => byOrder.get(payment.orderId)?.dispute?.status !== payment.chargeback?.status)
      .map(
        (payment) =>
          `${payment.orderId}: ${payment.chargeback?.status} at the gateway, ` +
          `${byOrder.get(payment.orderId)?.dispute?.status ?? "not disputed"} here`,
      ),
    periodsDue,
    charged: comparison.ours.succeeded,
    declined: attempts.filter((attempt) => attempt.status === "declined").length,
    pastDue,
    canceled,
    doubleCharges: comparison.doubleCharges,
    lostPeriods,
    checkoutsLeftPending,
    mismatches: comparison.mismatches,
    liveTokens: comparison.liveTokens,
    deadLetters: await explainDeadLetters(stack),
    realForms: realFormCounts(
      stack.sandbox,
      attempts.filter((attempt) => attempt.status === "voided").length,
    ),
  };
}

/** Periods whose start is at or before `now`: each must be paid, or the subscription in dunning with a reason. */
export function periodsStartedBy(subscription: Subscription, now: Date): number {
  let periods = 0;
  while (periodStartOf(subscription, periods) <= now) periods += 1;
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
  if (status === "paused") return `${id}: still paused, though every pause was resumed`;
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
