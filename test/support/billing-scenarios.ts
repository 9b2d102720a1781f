import { z } from "zod";
import type { OutboxEvent } from "../../functions/core/base/events";
import type { ChargeAttempt, Plan, Subscription } from "../../functions/core/base/model";
import { attemptKeyOf } from "../../functions/core/base/order-id";
import { mapConcurrently } from "../../functions/shared/map-concurrently";
import type { BillingStack, DrainReport } from "../../local/stack/billing-stack";
import { TEST_MERCHANT } from "../../sandbox/state/merchant-config";
import { cardSignups } from "./signups";

// Steps the end-to-end billing tests share: sign-ups through the sandbox, a scheduled renewal, ledger look-ups.

const SIGNUP_GATEWAY_TIMEOUT_MS = 5_000;

export const MONTHLY: Plan = { amount: "19.90", currency: "USD", interval_months: 1 };

/** Signs up `count` customers with `cardNumber` (server-to-server, token billing); every one must come out active. */
export async function signUpMany(
  stack: BillingStack,
  count: number,
  cardNumber: string,
  plan: Plan = MONTHLY,
): Promise<string[]> {
  // Patient sign-ups: a test's short gateway timeout is meant for the charge path under faults.
  const signUp = cardSignups(stack, SIGNUP_GATEWAY_TIMEOUT_MS);
  return mapConcurrently(Array.from({ length: count }), 16, (_, n) =>
    signUp({ n, number: cardNumber, plan }),
  );
}

export async function signUpOne(
  stack: BillingStack,
  cardNumber: string,
  plan: Plan = MONTHLY,
): Promise<string> {
  const [id] = await signUpMany(stack, 1, cardNumber, plan);
  if (id === undefined) throw new Error("no subscription signed up");
  return id;
}

/** The scheduler's turn at `at`: the clock moves there, a charge run fans out, the worker drains the queue. */
export async function renewAt(
  stack: BillingStack,
  at: Date,
): Promise<{ readonly enqueued: number; readonly drained: DrainReport }> {
  await stack.clock.set(at);
  const { enqueued } = await stack.chargeRun();
  return { enqueued, drained: await stack.drainChargeQueue() };
}

/** The scheduler's turn a minute after an instant the API answered (a next_charge_at, a cancel_at). */
export function renewAfter(stack: BillingStack, at: string | null) {
  return renewAt(stack, new Date(Date.parse(at ?? "") + 60_000));
}

/** The clock `days` into a paid period as the API shows it; the period's share still to run then. */
export async function clockIntoPeriod(
  stack: BillingStack,
  period: { readonly start: string; readonly end: string } | null,
  days: number,
): Promise<number> {
  const start = Date.parse(period?.start ?? "");
  const end = Date.parse(period?.end ?? "");
  const at = start + days * 86_400_000;
  await stack.clock.set(new Date(at));
  return (end - at) / (end - start);
}

export async function subscriptionOf(stack: BillingStack, id: string): Promise<Subscription> {
  const subscription = await stack.services.repository.getSubscription(id);
  if (!subscription) throw new Error(`subscription ${id} not found`);
  return subscription;
}

/** The subscription's next_charge_at; throws when nothing is due. */
export function dueAt(subscription: Subscription): Date {
  if (subscription.next_charge_at === undefined)
    throw new Error(`${subscription.subscription_id} has nothing due`);
  return new Date(subscription.next_charge_at);
}

export async function attemptsOf(stack: BillingStack, ids: readonly string[]): Promise<ChargeAttempt[]> {
  const ledgers = await mapConcurrently(ids, 8, (id) => stack.services.repository.listAttempts(id));
  return ledgers.flat();
}

/**
 * Transactions the sandbox recorded (any status, REBILLs and first payments alike) per `<subscription>/<period>` of
 * the given subscriptions: 1 everywhere means no period was ever sent to the gateway twice with success.
 */
export function gatewayTransactionsPerPeriod(
  stack: BillingStack,
  ids: readonly string[],
): Map<string, number> {
  const wanted = new Set(ids);
  const counts = new Map<string, number>();
  for (const payment of stack.sandbox.state.payments.payments()) {
    const key = attemptKeyOf(payment.orderId);
    if (!key || !wanted.has(key.subscription_id)) continue;
    const period = `${key.subscription_id}/${key.period}`;
    counts.set(period, (counts.get(period) ?? 0) + 1);
  }
  return counts;
}

/** Whether the sandbox holds any order (even a refused one) under this order_id. */
export function gatewayKnowsOrder(stack: BillingStack, orderId: string): boolean {
  return stack.sandbox.state.payments.findOrder(TEST_MERCHANT.mid, orderId) !== undefined;
}

/** The events delivered about one subscription, by when they occurred (pending ones delivered first). */
export async function eventsOf(stack: BillingStack, id: string): Promise<OutboxEvent[]> {
  return (await stack.events())
    .filter((event) => event.subscription_id === id)
    .sort((a, b) => Date.parse(a.occurred_at) - Date.parse(b.occurred_at));
}

/**
 * The types of a subscription's events, its charges' and its own apart: each item's events arrive in order, but a
 * charge's ledger line and its subscription are two items (README, Events).
 */
export async function eventTypesOf(stack: BillingStack, id: string) {
  const types = (await eventsOf(stack, id)).map((event) => event.type);
  return {
    charges: types.filter((type) => !type.startsWith("subscription.")),
    subscription: types.filter((type) => type.startsWith("subscription.")),
  };
}

const tokenReply = z.object({ rescode: z.literal("0000"), token_id: z.string() });

/** A new card on file at the sandbox (its sandbox-only token route), as a customer updating a card would give. */
export async function createSandboxToken(stack: BillingStack, cardNumber: string): Promise<string> {
  const response = await fetch(`${stack.sandbox.url}/sandbox/tokens`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ mid: TEST_MERCHANT.mid, card_number: cardNumber, expiry_date: "203012" }),
  });
  return tokenReply.parse(await response.json()).token_id;
}
