import type { ChargeDeps } from "../../functions/core/charge-engine";
import { DEFAULT_CHARGE_POLICY } from "../../functions/core/charge-policy";
import type { AttemptKey, ChargeAttempt, Subscription, TokenRecord } from "../../functions/core/model";
import type { GatewayOutcome } from "../../functions/core/outcome";
import type {
  AttemptUpdate,
  BillingEvent,
  BillingRepository,
  ChargeGateway,
  ChargeMessage,
  DueEntry,
  OrderLookup,
  RebillRequest,
  SubscriptionUpdate,
  TokenUpdate,
} from "../../functions/core/ports";

// In-memory stand-ins of the charge engine's ports for handler unit tests: enough of the repository's
// compare-and-set semantics for the charge protocol, scripted gateway outcomes, recorded events and messages.

const keyOf = ({ subscription_id, period, attempt }: AttemptKey) => `${subscription_id}#${period}#${attempt}`;

function notUsed(name: string): never {
  throw new Error(`${name} is not part of the fake repository`);
}

export class FakeRepository implements BillingRepository {
  readonly subscriptions = new Map<string, Subscription>();
  readonly attempts = new Map<string, ChargeAttempt>();
  /** Pages listDue yields (the due index). */
  duePages: DueEntry[][] = [];

  async createSubscription(subscription: Subscription) {
    if (this.subscriptions.has(subscription.subscription_id)) return false;
    this.subscriptions.set(subscription.subscription_id, subscription);
    return true;
  }
  async getSubscription(id: string) {
    return this.subscriptions.get(id);
  }
  async updateSubscription(id: string, { expect, set, remove = [] }: SubscriptionUpdate) {
    const current = this.subscriptions.get(id);
    if (!current) return false;
    if (expect.period !== undefined && expect.period !== current.period) return false;
    if (expect.attempt !== undefined && expect.attempt !== current.attempt) return false;
    if (expect.status !== undefined && expect.status !== current.status) return false;
    const next: Subscription = { ...current, ...set };
    for (const field of remove) delete next[field];
    this.subscriptions.set(id, next);
    return true;
  }
  async *listDue() {
    for (const page of this.duePages) yield page;
  }
  async claimAttempt(attempt: ChargeAttempt) {
    const existing = this.attempts.get(keyOf(attempt));
    if (existing) return { claimed: false as const, existing };
    this.attempts.set(keyOf(attempt), attempt);
    return { claimed: true as const };
  }
  async getAttempt(key: AttemptKey) {
    return this.attempts.get(keyOf(key));
  }
  async updateAttempt(key: AttemptKey, { expect, set, remove = [] }: AttemptUpdate) {
    const current = this.attempts.get(keyOf(key));
    if (!current || current.status !== expect.status || current.lease_until !== expect.lease_until)
      return false;
    const next: ChargeAttempt = { ...current, ...set };
    for (const field of remove) delete next[field];
    this.attempts.set(keyOf(key), next);
    return true;
  }
  async *listOpenAttempts(before: Date) {
    const open = [...this.attempts.values()].filter(
      (attempt) =>
        ["pending", "retry", "unknown"].includes(attempt.status) &&
        Date.parse(attempt.lease_until ?? "") < before.getTime(),
    );
    if (open.length > 0) yield open;
  }
  async listAttempts(id: string) {
    return [...this.attempts.values()].filter((attempt) => attempt.subscription_id === id);
  }
  readonly tokens = new Map<string, TokenRecord>();
  async putToken(token: TokenRecord) {
    this.tokens.set(token.token_id, token);
  }
  async getToken(id: string) {
    return this.tokens.get(id);
  }
  async updateToken(id: string, { expect, set }: TokenUpdate) {
    const current = this.tokens.get(id);
    if (current?.status !== expect.status) return false;
    this.tokens.set(id, { ...current, ...set });
    return true;
  }
  createRefund = () => notUsed("createRefund");
  updateRefund = () => notUsed("updateRefund");
  listRefunds = () => notUsed("listRefunds");
  recordOnce = () => notUsed("recordOnce");
  forgetOnce = () => notUsed("forgetOnce");
}

export type Script = (request: RebillRequest) => GatewayOutcome<{ transaction_id?: string }>;

export class ScriptedGateway implements ChargeGateway {
  /** What REBILL answers, per request (success by default). */
  script: Script = () => ({ kind: "success", value: { transaction_id: "T".repeat(24) } });
  /** What retrieve by order_id finds. */
  lookup: (orderId: string) => GatewayOutcome<OrderLookup> = () => ({
    kind: "success",
    value: { status: "NONE" },
  });

  /** What token deletion answers (success by default), and the tokens it was asked to delete. */
  deletion: GatewayOutcome<unknown> = { kind: "success", value: {} };
  readonly deletedTokens: string[] = [];

  async rebill(request: RebillRequest) {
    return this.script(request);
  }
  async findOrder({ order_id }: { order_id: string }) {
    return this.lookup(order_id);
  }
  async deleteToken(tokenId: string) {
    this.deletedTokens.push(tokenId);
    return this.deletion;
  }
}

export const START = new Date("2027-03-01T10:00:00.000Z");

/** A token subscription whose period 1 fell due a day before START. */
export function dueSubscription(id: string, overrides: Partial<Subscription> = {}): Subscription {
  return {
    subscription_id: id,
    status: "active",
    billing_mode: "token",
    customer: { name: "Ada Lovelace", email: "ada@example.com" },
    plan: { amount: "19.90", currency: "USD", interval_months: 1 },
    anchor_at: "2027-01-28T10:00:00.000Z",
    period: 1,
    attempt: 0,
    next_charge_at: "2027-02-28T10:00:00.000Z",
    token_id: "SBXTK0000000000000000018",
    created_at: "2027-01-28T10:00:00.000Z",
    updated_at: "2027-01-28T10:00:00.000Z",
    ...overrides,
  };
}

/** The charge engine's dependencies on fakes, plus a recording queue (the janitor's and the charge run's). */
export function fakeChargeServices() {
  const repository = new FakeRepository();
  const gateway = new ScriptedGateway();
  const published: BillingEvent[] = [];
  const queued: ChargeMessage[] = [];
  const deps: ChargeDeps & { readonly queue: { send(messages: readonly ChargeMessage[]): Promise<void> } } = {
    repository,
    gateway,
    events: { publish: async (events) => void published.push(...events) },
    clock: { now: () => new Date(START) },
    policy: DEFAULT_CHARGE_POLICY,
    queue: { send: async (messages) => void queued.push(...messages) },
  };
  return { repository, gateway, published, queued, deps };
}
