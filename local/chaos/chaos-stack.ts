import { chargeQueue } from "../../functions/composition/components";
import { DEFAULT_INVOICING_POLICY } from "../../functions/core/base/documents";
import { createPrng, deriveSeed } from "../../sandbox/shared/prng";
import { TEST_MERCHANT } from "../../sandbox/state/merchant-config";
import { LambdaFunctions } from "../lambda/lambda-functions";
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
import { CHAOS_TAX_RATES, FIRST_SIGNUP_AT } from "./sign-ups";

// The local stack as the chaos run meets it: the sandbox's faults on the money path, a mail service that throttles,
// and functions that die — the charge workers and the attempt sweep, event delivery after the bus took its events,
// queue-webhooks and send-webhooks — each crash point on a seeded stream; every charge message sent twice.

/** A lost answer costs a worker this long; latency spikes beyond it become unknown outcomes too. */
const CHAOS_GATEWAY_TIMEOUT_MS = 300;
/** The share of mail sends the mail service refuses (throttled). */
const MAIL_REFUSAL_RATE = 0.05;
/** Records per publish-events batch (100 when deployed): smaller batches, more deliveries that can crash. */
const DELIVERY_BATCH_SIZE = 10;
/**
 * send-webhooks' patience with an endpoint (10 s deployed): a hang costs its batch this long. The event loop this
 * process shares with everything else now and then answers later than this: a retry and a copy, nothing worse.
 */
const CHAOS_WEBHOOK_TIMEOUT_MS = 500;
/** The functions' composition: the local gateway tuning with the chaos run's timeout. */
const CHAOS_TUNING = { ...LOCAL_GATEWAY_TUNING, gatewayTimeoutMs: CHAOS_GATEWAY_TIMEOUT_MS };

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

export class ChaosStack {
  #duplicateDeliveries = 0;

  private constructor(
    readonly local: LocalStack,
    /** The table stream's deliveries through publish-events, dying after the bus took a record's events. */
    readonly delivery: LocalTableStream,
    private readonly output: CapturedOutput,
    private readonly crashes: {
      readonly charges: CrashInjector;
      readonly delivery: CrashInjector;
      readonly webhooks: CrashInjector;
    },
  ) {}

  /**
   * Starts the stack, its crashes at `crashRate` per crash point: the charge workers' and the attempt sweep's drawn
   * from `random`, the others each from a stream of its own.
   */
  static async start(seed: number, crashRate: number, random: () => number): Promise<ChaosStack> {
    // Our webhooks' functions die too: queue-webhooks once it queued its deliveries (the bus tries it again),
    // send-webhooks once an endpoint took a delivery (its message comes back). A stream of their own, as below.
    const webhookCrashes = new CrashInjector(createPrng(deriveSeed(seed, "chaos-webhooks")).next, crashRate);
    // The real handlers take the gateway's callbacks and webhooks (status_url, chargebacks) through the intake queue;
    // the charge runs, the charge queue's worker, the attempt sweep and the table stream's publish-events are invoked
    // here, each through its own row of the function table over a composition whose services crash (crash-injection.ts).
    const local = await LocalStack.start({
      port: 0,
      sandboxPort: 0,
      realTime: false,
      schedules: false,
      chargeWorker: false,
      start: FIRST_SIGNUP_AT,
      seed,
      gatewayTimeoutMs: CHAOS_GATEWAY_TIMEOUT_MS,
      // A crashed worker's message comes back after a second, a retry after 1–2 s (real time).
      visibilityTimeoutSeconds: 1,
      policy: {
        retryBaseSeconds: 1,
        retryMaxSeconds: 2,
        invoicing: { ...DEFAULT_INVOICING_POLICY, tax_rates: CHAOS_TAX_RATES },
      },
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
    const mailRefusals = createPrng(deriveSeed(seed, "chaos-mail"));
    stack.ses.refusal = () =>
      mailRefusals.next() < MAIL_REFUSAL_RATE ? "TooManyRequestsException" : undefined;
    const output = captureJsonOutput();
    // The table stream's deliveries, through publish-events, die after the bus took a record's events, before their
    // outbox is marked: those are published again, under the same event_ids. A stream of its own keeps the charge
    // workers' crashes on their seeded course whatever the polls' timing.
    const deliveryCrashes = new CrashInjector(createPrng(deriveSeed(seed, "chaos-delivery")).next, crashRate);
    // A failed delivery leaves its outbox pending for the next poll; what never got out is counted at the end.
    const delivery = stack.tableStream({
      functions: functionsWith(stack, ...deliveryCrashes.delivery()),
      batchSize: DELIVERY_BATCH_SIZE,
    });
    delivery.start();
    return new ChaosStack(local, delivery, output, {
      charges: new CrashInjector(random, crashRate),
      delivery: deliveryCrashes,
      webhooks: webhookCrashes,
    });
  }

  get stack(): BillingStack {
    return this.local.stack;
  }

  /** Charge messages sent twice so far. */
  get duplicateDeliveries(): number {
    return this.#duplicateDeliveries;
  }

  /** The charge runs', the charge queue's worker's and the attempt sweep's functions; the worker and the sweep die. */
  chargeFunctions() {
    // Every charge message is sent twice (the charge runs', the sweep's), as at-least-once delivery may.
    const duplicating = decoration(chargeQueue, (queue) => ({
      ...queue,
      send: async (messages) => {
        await queue.send([...messages, ...messages]);
        this.#duplicateDeliveries += messages.length;
      },
    }));
    return {
      chargeRun: functionsWith(this.stack, duplicating),
      worker: functionsWith(this.stack, ...this.crashes.charges.chargeWorker()),
      attemptSweep: functionsWith(this.stack, ...this.crashes.charges.attemptSweep(), duplicating),
    };
  }

  /** The crashes so far, at each crash point. */
  crashCounts(): Record<CrashPoint, number> {
    return {
      ...this.crashes.charges.counts,
      afterPublish: this.crashes.delivery.counts.afterPublish,
      afterFanOut: this.crashes.webhooks.counts.afterFanOut,
      afterWebhookPost: this.crashes.webhooks.counts.afterWebhookPost,
    };
  }

  /** Puts the terminal back: answers what the handlers wrote, and what their own metrics (EMF records) counted. */
  endCapture() {
    this.output.stop();
    const lines = this.output.lines();
    return {
      output: this.output.text(),
      handlerMetrics: {
        chargesSucceeded: emfTotal(lines, "ChargeSucceeded"),
        messagesFailed: emfTotal(lines, "ChargeMessagesFailed"),
      },
      webhookMetrics: {
        delivered: emfTotal(lines, "WebhooksDelivered"),
        attemptsFailed: emfTotal(lines, "WebhookAttemptsFailed"),
        deliveriesFailed: emfTotal(lines, "WebhookDeliveriesFailed"),
      },
    };
  }

  async close(): Promise<void> {
    this.output.stop();
    await this.delivery.stop();
    await this.local.close();
  }
}

/** The function table over a composition of the stack whose services wear `decorations` (crash-injection.ts). */
function functionsWith(stack: BillingStack, ...decorations: AnyDecoration[]): LambdaFunctions {
  return new LambdaFunctions(decoratedComposition(stack.compose(CHAOS_TUNING), decorations));
}

/** Mid-run, some customers' tokens are revoked at the gateway: their renewals go to past_due. */
export async function revokeSomeTokens(
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

type CapturedOutput = ReturnType<typeof captureJsonOutput>;

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
