import type { Command } from "commander";
import type { BillingClient } from "recurring-billing-client";
import { argumentsOf, CliError, type CommandRunner, emit } from "./cli-io";
import { answered, type LocalTarget, localApi, moveClock } from "./clock";
import { resolveTarget } from "./target";

// `events trigger <type>` (README, Ops CLI): on the local stack, makes the sandbox produce what is behind an event
// type for a new test subscription — a sign-up, a renewal declined by the issuer, a chargeback, a refund … — through
// the merchant API and the local clock, as a SaaS's own code would meet it. The clock moves for the whole stack.

/** The sandbox's test cards (README, Test cards). */
const CARDS = {
  approves: "4111111111111111",
  declinesOnRenewal: "4000000000000341",
  chargeback: "4000000000000259",
} as const;

const TEST_CUSTOMER = { name: "Trigger Customer", email: "trigger@example.com", external_id: "cus_trigger" };
const TEST_PLAN = { amount: "19.90", currency: "USD", interval_months: 1 };

/** The local stack's merchant API (the typed client) and clock, as the trigger's steps call them. */
class LocalApi {
  readonly billing: BillingClient;

  constructor(private readonly target: LocalTarget) {
    this.billing = localApi(target);
  }

  /** A call's data, or why it was refused (`what` names the call). */
  call<T>(what: string, call: Promise<{ data?: T; error?: unknown; response: Response }>): Promise<T> {
    return answered(this.target, `${what} was refused`, call);
  }

  /** A test customer's token subscription on `card`: its id. */
  async signUp(card: string, trialDays?: number): Promise<string> {
    const body = {
      customer: TEST_CUSTOMER,
      plan: { ...TEST_PLAN, ...(trialDays && { trial_days: trialDays }) },
      card: { number: card, expiry: "203012", cvc: "123" },
    };
    return (await this.call("the sign-up", this.billing.POST("/v1/subscriptions", { body }))).subscription_id;
  }

  /** A checkout of the test customer nobody pays: its id. */
  async abandonedCheckout(): Promise<string> {
    const body = {
      customer: TEST_CUSTOMER,
      plan: TEST_PLAN,
      billing: "token" as const,
      expires_in_minutes: 60,
    };
    return (await this.call("the checkout", this.billing.POST("/v1/checkouts", { body }))).subscription_id;
  }

  /** A change of the subscription `id` (`path` of /v1/subscriptions/{id}…). */
  change(
    id: string,
    what: string,
    change: (params: { path: { id: string } }) => Promise<Answer>,
  ): Promise<unknown> {
    return this.call(what, change({ path: { id } }));
  }

  advance(duration: string): Promise<string> {
    return moveClock(this.target, duration);
  }
}

type Answer = { data?: unknown; error?: unknown; response: Response };

interface Trigger {
  /** What it does, for --help and the answer. */
  readonly does: string;
  readonly run: (api: LocalApi) => Promise<string>;
}

const signUp = (api: LocalApi) => api.signUp(CARDS.approves);
const signedUpThen = (then: (api: LocalApi, id: string) => Promise<unknown>) => async (api: LocalApi) => {
  const id = await signUp(api);
  await then(api, id);
  return id;
};
const chargeback = (after: string) => async (api: LocalApi) => {
  const id = await api.signUp(CARDS.chargeback);
  await api.advance(after);
  return id;
};
const declinedRenewal = async (api: LocalApi) => {
  const id = await api.signUp(CARDS.declinesOnRenewal);
  // A month and a day: the renewal's charge run fires on the way.
  await api.advance("P32D");
  return id;
};

/** Every event type a trigger can produce, and how. */
export const EVENT_TRIGGERS: Readonly<Record<string, Trigger>> = {
  "subscription.created": { does: "signs up a test customer with a card that pays", run: signUp },
  "subscription.activated": { does: "signs up a test customer with a card that pays", run: signUp },
  "charge.succeeded": { does: "signs up a test customer with a card that pays", run: signUp },
  "subscription.trial_started": {
    does: "signs up a test customer for a 7-day trial",
    run: (api) => api.signUp(CARDS.approves, 7),
  },
  "charge.failed": {
    does: "signs up with a card the issuer declines on renewal, then moves the clock 32 days",
    run: declinedRenewal,
  },
  "subscription.past_due": {
    does: "signs up with a card the issuer declines on renewal, then moves the clock 32 days",
    run: declinedRenewal,
  },
  "subscription.canceled": {
    does: "signs up, then cancels at once",
    run: signedUpThen((api, id) =>
      api.change(id, "the cancel", (params) =>
        api.billing.DELETE("/v1/subscriptions/{id}", { params, body: {} }),
      ),
    ),
  },
  "subscription.cancel_scheduled": {
    does: "signs up, then cancels at the end of the period",
    run: signedUpThen((api, id) =>
      api.change(id, "the cancel", (params) =>
        api.billing.DELETE("/v1/subscriptions/{id}", { params, body: { at_period_end: true } }),
      ),
    ),
  },
  "subscription.paused": {
    does: "signs up, then pauses",
    run: signedUpThen((api, id) =>
      api.change(id, "the pause", (params) =>
        api.billing.POST("/v1/subscriptions/{id}/pause", { params, body: {} }),
      ),
    ),
  },
  "subscription.resumed": {
    does: "signs up, pauses, then resumes",
    run: signedUpThen(async (api, id) => {
      await api.change(id, "the pause", (params) =>
        api.billing.POST("/v1/subscriptions/{id}/pause", { params, body: {} }),
      );
      await api.change(id, "the resume", (params) =>
        api.billing.POST("/v1/subscriptions/{id}/resume", { params, body: {} }),
      );
    }),
  },
  "subscription.updated": {
    does: "signs up, then sets a metadata key",
    run: signedUpThen((api, id) =>
      api.change(id, "the update", (params) =>
        api.billing.POST("/v1/subscriptions/{id}", { params, body: { metadata: { triggered: "yes" } } }),
      ),
    ),
  },
  "payment_method.updated": {
    does: "signs up, then replaces the card",
    run: signedUpThen((api, id) =>
      api.change(id, "the new card", (params) =>
        api.billing.POST("/v1/subscriptions/{id}/payment-method", {
          params,
          body: { card: { number: CARDS.approves, expiry: "203112", cvc: "123" } },
        }),
      ),
    ),
  },
  "refund.succeeded": {
    does: "signs up, then refunds 1.00 of the first charge",
    run: signedUpThen((api, id) =>
      api.change(`${id}-0-0`, "the refund", (params) =>
        api.billing.POST("/v1/charges/{id}/refunds", {
          params,
          body: { amount: "1.00", reason: "events trigger" },
        }),
      ),
    ),
  },
  "checkout.expired": {
    does: "opens an hour's checkout nobody pays, then moves the clock 61 minutes (the attempt sweep closes it)",
    run: async (api) => {
      const id = await api.abandonedCheckout();
      await api.advance("PT61M");
      return id;
    },
  },
  "chargeback.received": {
    does: "signs up with the chargeback test card, then moves the clock a day (the gateway reports it)",
    run: chargeback("P1DT1H"),
  },
  "chargeback.updated": {
    does: "signs up with the chargeback test card, then moves the clock 23 days (reported, then deducted)",
    run: chargeback("P23D"),
  },
};

/** `events trigger <type>`: the local stack produces the event for a new test subscription. */
export function addEventsTriggerCommand(events: Command, run: CommandRunner): void {
  const types = Object.keys(EVENT_TRIGGERS);
  events
    .command("trigger")
    .description("local only: make the sandbox produce an event type for a new test subscription")
    .argument("<type>", `an event type: ${types.join(", ")}`)
    .action(
      run(async (command, out) => {
        const [type = ""] = argumentsOf(command);
        const trigger = EVENT_TRIGGERS[type];
        if (trigger === undefined)
          throw new CliError(
            `<type> ${JSON.stringify(type)} has no trigger: type one of ${types.join(", ")}`,
          );
        const target = await resolveTarget(command);
        if (target.kind !== "local")
          throw new CliError(
            "events trigger works on the local stack only (it moves the sandbox): pass --local",
          );
        const subscriptionId = await trigger.run(new LocalApi(target));
        emit(out, { type, subscription_id: subscriptionId, did: trigger.does }, () => [
          `${type}: ${trigger.does}`,
          `subscription ${subscriptionId}; its events: npx billing --local events list --subscription ${subscriptionId}`,
        ]);
      }),
    );
}
