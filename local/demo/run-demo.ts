import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { setTimeout as sleep } from "node:timers/promises";
import { type BillingClient, createBillingClient } from "recurring-billing-client";
import { z } from "zod";
import { runBillingCli } from "../../cli/billing-cli";
import { couponView } from "../../functions/api/coupon-schemas";
import {
  chargeListView,
  checkoutView,
  errorBody,
  subscriptionView,
} from "../../functions/api/merchant-api-views";
import { fromCents, toCents } from "../../functions/core/base/money";
import type { SubscriptionView } from "../../functions/core/base/subscription-view";
import { reconciliationRunSchema } from "../../functions/core/refunds/settlements";
import { payoutsReportSchema } from "../../functions/core/reports/payouts";
import {
  type RevenueMonth,
  revenueNowSchema,
  revenueReportSchema,
} from "../../functions/core/reports/revenue";
import { mapConcurrently } from "../../functions/shared/map-concurrently";
import { compareLedgers } from "../audit/ledger-comparison";
import { realFormCounts } from "../audit/real-forms";
import { approximateMessageCount } from "../aws/sqs-emulator";
import { sandboxControl } from "../clients/sandbox-controls";
import { LocalStack } from "../stack/local-stack";
import { type DemoCustomer, flowOf, type Journey, planCustomers } from "./customer-mix";
import {
  DEMO_DECLINE_CODES,
  DEMO_FAULTS,
  DEMO_POLICY,
  DEMO_START,
  JUMP_RESOLUTION,
  SCRIPT,
  type ScriptEvent,
} from "./demo-script";
import {
  type DemoDashboard,
  type DemoObservations,
  type DemoReconciliation,
  type DemoSummary,
  dashboardViolations,
  exitCodeOf,
  formatDashboard,
  formatInvariants,
  formatReconciliation,
  formatSummary,
  type LifecycleChange,
  type LifecycleOutcome,
  netMovements,
  reconciliationViolations,
  summarize,
  violationsOf,
} from "./demo-summary";
import type { Progress } from "./progress";

// `npm run demo`: a scripted month on a fresh local stack, driven like a merchant drives it — the merchant API over
// HTTP, the sandbox's controls standing in for customers and banks — then every charge reconciled with the gateway.

export interface DemoOptions {
  readonly customers: number;
  readonly seed: number;
  readonly progress: Progress;
}

export interface DemoResult {
  readonly summary: DemoSummary;
  /** Every subscription the sign-ups made, as the API shows it at the end. */
  readonly subscriptions: readonly SubscriptionView[];
  /** The revenue report of the demo's months (`npx billing report revenue`), as the ops CLI computes it. */
  readonly revenue: readonly RevenueMonth[];
  /** `npx billing reconcile` and `npx billing report payouts` over the demo's days. */
  readonly reconciliation: DemoReconciliation;
  readonly violations: readonly string[];
  readonly exitCode: 0 | 1;
}

/** Requests in flight at once (sign-ups, reads): each mostly waits on dynalite, so 16 keep both cores busy. */
const CONCURRENCY = 16;
const CARD_EXPIRY = "203012";
/** The demo SaaS's own page the window returns the customer to. */
const SHOP_RETURN_URL = "https://shop.example/subscribed";
const CARD_CVC = "123";
const QUEUE_SETTLE_TIMEOUT_MS = 120_000;

/** The new card a card-update customer gives. */
const NEW_CARD = "5555555555554444";
const TRIAL_DAYS = 14;
/** The month's coupon: 15 % off three charges, redeemed by code at sign-up. */
const DEMO_COUPON = {
  code: "DEMO15",
  percent_off: 15,
  duration: "repeating",
  duration_in_months: 3,
} as const;
/** An upgrade adds this to the plan amount. */
const UPGRADE_CENTS = 1000;

interface Signup {
  readonly customer: DemoCustomer;
  /** Undefined when the sign-up was declined at once. */
  readonly subscriptionId: string | undefined;
  /** Its first payment was settled at sign-up (a 201, or a window completed): the script can use it. */
  readonly settled: boolean;
  /** A card sign-up answered 202: its payment's outcome was still being settled. */
  readonly pending?: boolean;
}

/** How often a card sign-up answered 202 is repeated with its key, the faults still on. */
const PENDING_SIGNUP_ROUNDS = 4;

/** A card sign-up answered 202: repeated with its key until it answers what it came to. */
const isPendingCardSignup = (signup: Signup) => signup.pending === true;

export async function runDemo(options: DemoOptions): Promise<DemoResult> {
  const startedAt = performance.now();
  const { progress, seed } = options;
  let failedInvocations = 0;
  const local = await LocalStack.start({
    port: 0,
    sandboxPort: 0,
    realTime: false,
    jumpResolution: JUMP_RESOLUTION,
    start: DEMO_START,
    seed,
    faults: DEMO_FAULTS.signups,
    policy: DEMO_POLICY,
    declineCodes: DEMO_DECLINE_CODES,
    // Faults make handlers fail now and then; the platform retries them (counted, not printed).
    onError: () => {
      failedInvocations += 1;
    },
  });
  try {
    const month = new Month(local, seed, progress);
    progress.line(`demo: ${options.customers} customers, seed ${seed}, from ${DEMO_START.toISOString()}`);
    const signups = await month.signUp(planCustomers(options.customers, seed));
    await month.liveThrough(signups);
    const observed = await month.observe(signups, options.customers);
    const summary = summarize(observed, performance.now() - startedAt);
    const violations = violationsOf(observed);
    const revenue = await revenueOf(local, DEMO_START, observed.now);
    const thisMonth = revenue.filter((each) => each.month === observed.now.toISOString().slice(0, 7));
    const dashboard = await dashboardOf(local, DEMO_START, observed.now);
    violations.push(...dashboardViolations(thisMonth, dashboard));
    progress.line("reconciling the days with the gateway's transactions and payouts (npx billing reconcile)");
    const reconciliation = await reconciliationOf(local, DEMO_START, observed.now);
    violations.push(...reconciliationViolations(reconciliation.run));
    for (const line of formatSummary(summary)) progress.line(line);
    for (const month of thisMonth)
      progress.line(
        `MRR ${month.month}: ${month.mrr} ${month.currency} from ${month.active} paying (new ${month.new}, expansion ${month.expansion}, contraction ${month.contraction}, churned ${month.churned})`,
      );
    for (const line of formatDashboard(dashboard)) progress.line(line);
    for (const line of formatReconciliation(reconciliation)) progress.line(line);
    if (failedInvocations > 0)
      progress.line(`${failedInvocations} failed invocations under faults, retried by the platform`);
    for (const line of formatInvariants(observed, violations)) progress.line(line);
    return {
      summary,
      subscriptions: observed.subscriptions,
      revenue,
      reconciliation,
      violations,
      exitCode: exitCodeOf(violations),
    };
  } finally {
    await local.close();
  }
}

/** The ops CLI in this process over the local stack's outputs, as an operator types it; its --json output parsed. */
async function opsCli<T>(local: LocalStack, args: readonly string[], schema: z.ZodType<T>): Promise<T> {
  const dir = await mkdtemp(join(tmpdir(), "billing-demo-"));
  try {
    const outputs = join(dir, "outputs.json");
    await writeFile(outputs, JSON.stringify(local.outputs()));
    let stdout = "";
    let stderr = "";
    const io = {
      stdout: { write: (text: string) => (stdout += text) },
      stderr: { write: (text: string) => (stderr += text) },
    };
    const code = await runBillingCli(["--local-outputs", outputs, ...args, "--json"], io);
    // reconcile exits 1 when anything differs and still prints its report: the invariants read it.
    if (stdout === "") throw new Error(`${args.slice(0, 2).join(" ")} failed (${code}): ${stderr}`);
    return schema.parse(JSON.parse(stdout));
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

const dayOf = (at: Date) => at.toISOString().slice(0, 10);

/** The demo's months as an operator reads them: `npx billing report revenue --json`. */
async function revenueOf(local: LocalStack, from: Date, to: Date): Promise<RevenueMonth[]> {
  const args = ["report", "revenue", "--from", dayOf(from), "--to", dayOf(to)];
  return (await opsCli(local, args, revenueReportSchema)).months;
}

/**
 * The dashboard's revenue figures as Lambda puts them: measure-revenue invoked as its schedule does, and the MRR
 * movements of every event the log kept (what publish-events counted), netted.
 */
async function dashboardOf(local: LocalStack, from: Date, to: Date): Promise<DemoDashboard> {
  await local.stack.deliverEvents();
  const measured = measuredRevenueSchema.parse(await local.stack.functions.invoke("measure-revenue", {}));
  const events = [];
  const end = new Date(to.getTime() + 86_400_000);
  for await (const page of local.stack.services.repository.readEventLog({ from, to: end }))
    events.push(...page);
  return { measured: measured.currencies, moved: netMovements(events) };
}

const measuredRevenueSchema = z.object({ currencies: z.array(revenueNowSchema) });

/**
 * The demo's days reconciled as an operator would: `npx billing reconcile` (the gateway's transactions and payouts
 * against the ledger, day by day), then `npx billing report payouts`.
 */
async function reconciliationOf(local: LocalStack, from: Date, to: Date): Promise<DemoReconciliation> {
  const period = ["--from", dayOf(from), "--to", dayOf(to)];
  const run = await opsCli(local, ["reconcile", ...period], reconciliationRunSchema);
  const payouts = await opsCli(local, ["report", "payouts", ...period], payoutsReportSchema);
  return { run, payouts };
}

/** The month's script against one local stack. */
class Month {
  /** The merchant API through the typed client package, as a SaaS's backend calls it. */
  readonly #billing: BillingClient;
  /** Calls repeated (the same Idempotency-Key) after a 5xx or a request still in progress. */
  #retries = 0;
  #signupDeclines = 0;
  readonly #lifecycle: LifecycleOutcome[] = [];

  constructor(
    private readonly local: LocalStack,
    private readonly seed: number,
    private readonly progress: Progress,
  ) {
    this.#billing = createBillingClient({
      baseUrl: local.url,
      apiKey: local.apiKey,
      ...MERCHANT_RETRIES,
      onRetry: () => {
        this.#retries += 1;
      },
    });
  }

  async signUp(customers: readonly DemoCustomer[]): Promise<Signup[]> {
    const coupon = this.#billing.POST("/v1/coupons", { body: DEMO_COUPON, headers: this.#key("coupon", 0) });
    expectView("coupon", await answerOf(coupon), [201], couponView);
    let signups = await this.progress.step("sign-ups", customers.length, (tick) =>
      mapConcurrently(customers, CONCURRENCY, async (customer) => {
        const signup = await this.#signUpOne(customer);
        tick();
        return signup;
      }),
    );
    await this.#settleQueues();
    // A card sign-up answered 202 met a gateway that failed after the request left: once the in-flight window has
    // passed, the attempt sweep has settled its payment, and the same request with the same key answers what it came
    // to (or pays now, under a new order_id, when nothing was charged), as a merchant's backend repeats a 202.
    for (let round = 0; round < PENDING_SIGNUP_ROUNDS && signups.some(isPendingCardSignup); round += 1) {
      await this.local.advanceClock("PT10M");
      await this.#settleQueues();
      signups = await mapConcurrently(signups, CONCURRENCY, (signup) =>
        isPendingCardSignup(signup) ? this.#signUpOne(signup.customer) : Promise.resolve(signup),
      );
      await this.#settleQueues();
    }
    return signups;
  }

  /** Through the script's days: the schedules fire, the queues settle, then that day's event happens. */
  async liveThrough(signups: readonly Signup[]): Promise<void> {
    const ids = (journey: Journey, count = Number.POSITIVE_INFINITY) =>
      signups
        .filter((signup) => signup.customer.journey === journey && signup.settled)
        .flatMap((signup) => signup.subscriptionId ?? [])
        .slice(0, count);
    const plans = new Map(signups.map((signup) => [signup.subscriptionId, signup.customer.plan]));
    const events: Readonly<Record<ScriptEvent, () => Promise<void>>> = {
      extras: async () => {
        await this.#extras(ids("renews", 4), ids("gateway-recurring", 1));
        await this.#change(ids("cancel-at-period-end"), "canceled at period end", {
          what: "cancel",
          send: (params) =>
            this.#billing.DELETE("/v1/subscriptions/{id}", { params, body: { at_period_end: true } }),
          expect: { status: "canceled", status_reason: "canceled_at_period_end" },
        });
      },
      upgrades: () =>
        this.#change(ids("upgrade"), "upgraded with proration", {
          what: "adjust",
          send: (params, headers) =>
            this.#billing.POST("/v1/subscriptions/{id}/adjust", {
              params,
              headers,
              body: { amount: upgraded(plans.get(params.path.id)), proration: "charge_now" },
            }),
          expect: { status: "active" },
        }),
      pauses: () =>
        this.#change(ids("pause-resume"), undefined, {
          what: "pause",
          send: (params, headers) =>
            this.#billing.POST("/v1/subscriptions/{id}/pause", { params, headers, body: {} }),
        }),
      "card-updates": () =>
        this.#change(ids("card-update"), "card updated", {
          what: "payment-method",
          send: (params, headers) =>
            this.#billing.POST("/v1/subscriptions/{id}/payment-method", {
              params,
              headers,
              body: { card: { number: NEW_CARD, expiry: CARD_EXPIRY, cvc: CARD_CVC } },
            }),
          expect: { status: "active" },
        }),
      resumes: () =>
        this.#change(ids("pause-resume"), "paused and resumed", {
          what: "resume",
          send: (params, headers) =>
            this.#billing.POST("/v1/subscriptions/{id}/resume", { params, headers, body: {} }),
          expect: { status: "active" },
        }),
      "dead-and-blocked-cards": async () => {
        await this.#tokenAction(ids("token-expires"), "expire");
        await this.#tokenAction(ids("card-blocked"), "revoke");
      },
      "unblock-cards": () => this.#tokenAction(ids("card-blocked"), "reactivate"),
      cancels: () => this.#cancel([...ids("renews").slice(-1), ...ids("gateway-recurring").slice(1, 2)]),
    };
    this.local.stack.sandbox.faults.configure(DEMO_FAULTS.month);
    const lastDay = SCRIPT.at(-1)?.day ?? 0;
    await this.progress.step("clock (days)", lastDay, async (tick) => {
      let today = 0;
      for (const { day, event } of SCRIPT) {
        await this.local.advanceClock(`P${day - today}D`);
        await this.#settleQueues();
        if (event) await events[event]();
        tick(day - today);
        today = day;
      }
    });
    // The incident is over: without faults the attempt sweep settles what the last days left open.
    this.local.stack.sandbox.faults.configure({});
    for (const step of ["PT10M", "PT10M"]) {
      await this.local.advanceClock(step);
      await this.#settleQueues();
    }
  }

  async observe(signups: readonly Signup[], customers: number): Promise<DemoObservations> {
    const ids = signups.flatMap((signup) => signup.subscriptionId ?? []);
    const read = await this.progress.step("reading the ledgers", ids.length, (tick) =>
      mapConcurrently(ids, CONCURRENCY, async (id) => {
        const params = { path: { id } };
        const subscription = await readView(
          this.#billing.GET("/v1/subscriptions/{id}", { params }),
          subscriptionView,
        );
        const { charges } = await this.#chargesOf(id);
        tick();
        return { subscription, charges };
      }),
    );
    const { stack } = this.local;
    const deadLetters = await Promise.all(
      [stack.chargeQueue.dlqUrl, stack.intakeQueue.dlqUrl].map((url) =>
        approximateMessageCount(stack.sqs.client, url),
      ),
    );
    return {
      now: this.local.clock.now(),
      customers,
      subscriptions: read.map(({ subscription }) => subscription),
      charges: new Map(read.map(({ subscription, charges }) => [subscription.subscription_id, charges])),
      signupDeclines: this.#signupDeclines,
      abandonedWindows: new Set(
        signups.flatMap((signup) =>
          signup.customer.journey === "window-abandoned" ? (signup.subscriptionId ?? []) : [],
        ),
      ),
      retries: this.#retries,
      faults: stack.sandbox.faults.counters().total,
      realForms: realFormCounts(
        stack.sandbox,
        read.flatMap(({ charges }) => charges).filter((charge) => charge.status === "voided").length,
      ),
      ledgers: await compareLedgers(stack, ids),
      deadLetters: deadLetters.reduce((sum, count) => sum + count, 0),
      lifecycle: [
        ...this.#lifecycle,
        ...signups.flatMap((signup) =>
          signup.customer.journey === "trial" && signup.settled && signup.subscriptionId !== undefined
            ? [
                {
                  subscription_id: signup.subscriptionId,
                  change: "started with a trial" as const,
                  expect: { status: "active" as const },
                },
              ]
            : [],
        ),
      ],
    };
  }

  /**
   * One lifecycle request per subscription (`send` makes it, `what` names it); `change` is what it makes of the
   * subscription, recorded with the state it must end in — unless its payment was still being settled (202).
   */
  async #change(
    ids: readonly string[],
    change: LifecycleChange | undefined,
    request: {
      readonly what: string;
      readonly send: (params: { path: { id: string } }, headers: IdempotencyHeader) => Promise<Sent>;
      readonly expect?: LifecycleOutcome["expect"];
    },
  ): Promise<void> {
    for (const id of ids) {
      const answer = await answerOf(request.send({ path: { id } }, this.#key(`${id}-${request.what}`, 0)));
      if (answer.status !== 200 && answer.status !== 202)
        throw unexpected(`${request.what} of ${id}`, answer);
      if (change !== undefined)
        this.#lifecycle.push({
          subscription_id: id,
          change,
          ...(answer.status === 200 && request.expect !== undefined ? { expect: request.expect } : {}),
        });
    }
  }

  async #signUpOne(customer: DemoCustomer): Promise<Signup> {
    const { name, email } = customer;
    const plan = customer.journey === "trial" ? { ...customer.plan, trial_days: TRIAL_DAYS } : customer.plan;
    const request = {
      customer: { name, email },
      plan,
      ...(customer.quantity === undefined ? {} : { quantity: customer.quantity }),
      ...(customer.coupon ? { coupon: DEMO_COUPON.code } : {}),
    };
    const key = this.#key("signup", customer.index);
    const flow = flowOf(customer.journey);
    if (flow === "card") {
      const card = { number: customer.cardNumber, expiry: CARD_EXPIRY, cvc: CARD_CVC };
      const answer = await answerOf(
        this.#billing.POST("/v1/subscriptions", { body: { ...request, card }, headers: key }),
      );
      if (answer.status === 422) {
        this.#signupDeclines += 1;
        return { customer, subscriptionId: undefined, settled: false };
      }
      const subscription = expectView("sign-up", answer, [201, 202], subscriptionView);
      // A payment the attempt sweep found (its answer was lost) pays period 0 but learns no token: past_due,
      // waiting for a card, and no journey of the script can use it.
      const usable = subscription.status === "active" || subscription.status === "trialing";
      return {
        customer,
        subscriptionId: subscription.subscription_id,
        settled: answer.status === 201 && usable,
        pending: answer.status === 202,
      };
    }
    const billing = flow === "window-recurring" ? "recurring" : "token";
    // The demo's SaaS opens the window from its own page (a refused payment then ends the checkout, as its
    // journeys expect); the hosted checkout is walked through in a browser by the pages' tests.
    const body = { ...request, billing, return_url: SHOP_RETURN_URL } as const;
    const checkout = expectView(
      "checkout",
      await answerOf(this.#billing.POST("/v1/checkouts", { body, headers: key })),
      [201],
      checkoutView,
    );
    const completed = customer.journey !== "window-abandoned";
    if (completed) {
      // The customer types the card in the window; the sandbox then calls our status_url.
      await this.#sandbox(`/sandbox/windows/${checkout.fgkey}/complete`, {
        card_number: customer.cardNumber,
        expiry_date: CARD_EXPIRY,
        cvc: CARD_CVC,
      });
    }
    return { customer, subscriptionId: checkout.subscription_id, settled: completed };
  }

  /** An ad hoc charge, a full and a partial refund, and plan changes (one on a gateway-managed plan). */
  async #extras(renewing: readonly string[], gatewayManaged: readonly string[]): Promise<void> {
    const [charged, refundedFully, refundedPartly, adjusted] = renewing;
    if (charged) {
      const params = { path: { id: charged } };
      const headers = this.#key(`${charged}-charge`, 0);
      const charge = this.#billing.POST("/v1/subscriptions/{id}/charges", {
        params,
        headers,
        body: { amount: "5.00" },
      });
      await expectStatus(`ad hoc charge of ${charged}`, charge, [201, 202]);
    }
    if (refundedFully) await this.#refundFirstCharge(refundedFully, { reason: "duplicate order" });
    if (refundedPartly)
      await this.#refundFirstCharge(refundedPartly, { amount: "1.00", reason: "service credit" });
    for (const id of [adjusted, ...gatewayManaged]) {
      if (!id) continue;
      const params = { path: { id } };
      const headers = this.#key(`${id}-adjust`, 0);
      const adjust = this.#billing.POST("/v1/subscriptions/{id}/adjust", {
        params,
        headers,
        body: { amount: "24.90" },
      });
      await expectStatus(`adjust of ${id}`, adjust, [200]);
    }
  }

  #chargesOf(id: string) {
    return readView(
      this.#billing.GET("/v1/subscriptions/{id}/charges", { params: { path: { id } } }),
      chargeListView,
    );
  }

  /** Refunds the sign-up's charge (a retried sign-up may have paid on a later attempt than 0). */
  async #refundFirstCharge(id: string, refund: { readonly amount?: string; readonly reason: string }) {
    const { charges } = await this.#chargesOf(id);
    const paid = charges.find((charge) => charge.period === 0 && charge.status === "succeeded");
    if (!paid) throw new Error(`${id} has no paid sign-up charge to refund`);
    const params = { path: { id: paid.charge_id } };
    const headers = this.#key(`${paid.charge_id}-refund`, 0);
    await expectStatus(
      `refund of ${paid.charge_id}`,
      this.#billing.POST("/v1/charges/{id}/refunds", { params, headers, body: refund }),
      [201, 202],
    );
  }

  async #cancel(ids: readonly string[]): Promise<void> {
    for (const id of ids) {
      await expectStatus(
        `cancel of ${id}`,
        this.#billing.DELETE("/v1/subscriptions/{id}", { params: { path: { id } } }),
        [200],
      );
    }
  }

  /** Changes each subscription's token at the gateway (the sandbox's own control; the id as we stored it). */
  async #tokenAction(ids: readonly string[], action: "expire" | "revoke" | "reactivate"): Promise<void> {
    for (const id of ids) {
      const tokenId = (await this.local.stack.services.repository.getSubscription(id))?.token_id;
      if (tokenId === undefined) throw new Error(`${id} has no token to ${action}`);
      await this.#sandbox(`/sandbox/tokens/${tokenId}/${action}`);
    }
  }

  #key(what: string, index: number): IdempotencyHeader {
    return { "Idempotency-Key": `demo-${this.seed}-${what}-${index}` };
  }

  #sandbox(path: string, body?: unknown): Promise<void> {
    return sandboxControl(this.local.sandboxUrl, path, body);
  }

  /**
   * Waits until both work queues are empty, retries included: local-aws-sqs counts a message until it is deleted,
   * and the event source mappings keep polling in real time while the clock stands still.
   */
  async #settleQueues(): Promise<void> {
    const { stack } = this.local;
    const deadline = performance.now() + QUEUE_SETTLE_TIMEOUT_MS;
    for (;;) {
      const counts = await Promise.all(
        [stack.chargeQueue.queueUrl, stack.intakeQueue.queueUrl].map((url) =>
          approximateMessageCount(stack.sqs.client, url),
        ),
      );
      if (counts.every((count) => count === 0)) return;
      if (performance.now() > deadline)
        throw new Error(`queues did not settle: ${counts.join(", ")} messages`);
      await sleep(25);
    }
  }
}

/** An upgrade of the plan amount (the plan the customer signed up with). */
function upgraded(plan: { readonly amount: string; readonly currency: string } | undefined): string {
  if (plan === undefined) throw new Error("no plan to upgrade");
  return fromCents(toCents(plan.amount) + UPGRADE_CENTS, plan.currency);
}

/** How the demo's SaaS repeats a request (the same Idempotency-Key) after a 5xx or a request still in progress. */
const MERCHANT_RETRIES = { maxRetries: 10, retryDelayMs: 50, maxRetryDelayMs: 1_000 } as const;

type IdempotencyHeader = { readonly "Idempotency-Key": string };
/** A call of the typed client as it comes back (openapi-fetch): its data or error, and the response. */
type Sent = { readonly data?: unknown; readonly error?: unknown; readonly response: Response };
/** An answer as the demo reads it: its status and its body, a success's or an error's. */
interface ApiAnswer {
  readonly status: number;
  readonly body: unknown;
}

async function answerOf(call: Promise<Sent>): Promise<ApiAnswer> {
  const { data, error, response } = await call;
  return { status: response.status, body: data ?? error };
}

async function expectStatus(what: string, call: Promise<Sent>, statuses: readonly number[]): Promise<void> {
  const answer = await answerOf(call);
  if (!statuses.includes(answer.status)) throw unexpected(what, answer);
}

/** A read that must succeed, parsed with the view's schema. */
async function readView<S extends z.ZodType>(call: Promise<Sent>, view: S): Promise<z.output<S>> {
  return expectView("read", await answerOf(call), [200], view);
}

function unexpected(what: string, answer: ApiAnswer): Error {
  const error = errorBody.safeParse(answer.body);
  return new Error(`${what} answered ${answer.status}${error.success ? ` ${error.data.error.code}` : ""}`);
}

function expectView<S extends z.ZodType>(
  what: string,
  answer: ApiAnswer,
  statuses: readonly number[],
  view: S,
): z.output<S> {
  if (!statuses.includes(answer.status)) throw unexpected(what, answer);
  return view.parse(answer.body);
}
