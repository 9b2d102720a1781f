import { DEFAULT_CHARGE_POLICY } from "../../functions/core/base/charge-policy";
import type { Subscription } from "../../functions/core/base/model";
import type { GatewayOutcome } from "../../functions/core/base/outcome";
import type { ChargeDeps } from "../../functions/core/charging/charge-engine";
import type { CouponStore } from "../../functions/core/ports/coupon-store";
import type {
  ChargeGateway,
  OrderLookup,
  RebillRequest,
  RefundRequest,
} from "../../functions/core/ports/payment-gateway";
import type { ChargeMessage } from "../../functions/core/ports/queues";
import { subscription } from "./billing-repository-contract";
import { MemoryBillingRepository, type MemoryBillingRepositoryOptions } from "./memory-billing-repository";
import { partialPort } from "./partial-port";

// Stand-ins of the charge engine's other ports for handler and core unit tests: scripted gateway outcomes and
// recorded messages. The repository is the in-memory one that passes the repository contract; `written` is every
// event its writes put in an outbox.

export type Script = (request: RebillRequest) => GatewayOutcome<{ transaction_id?: string }>;

export class ScriptedGateway implements ChargeGateway {
  /** What REBILL answers, per request (success by default). */
  script: Script = () => ({ kind: "success", value: { transaction_id: "T".repeat(24) } });
  /** What retrieve by order_id finds. */
  lookup: (orderId: string) => GatewayOutcome<OrderLookup> = () => ({
    kind: "success",
    value: { state: "none" },
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
  /** Refunds asked for (a verification the sweep found paid); each succeeds. */
  readonly refunds: RefundRequest[] = [];
  async refund(request: RefundRequest) {
    this.refunds.push(request);
    return { kind: "success" as const, value: { refund_transaction_id: `R-${request.refund_id}` } };
  }
  /** Retrieve by refund_id finds the refunds made above. */
  async findRefund({ refund_id }: { refund_id: string }) {
    const made = this.refunds.some((request) => request.refund_id === refund_id);
    return {
      kind: "success" as const,
      value: made
        ? { found: true as const, refund_transaction_id: `R-${refund_id}` }
        : { found: false as const },
    };
  }
}

export const START = new Date("2027-03-01T10:00:00.000Z");

/** A token subscription (no card summary) whose period 1 fell due a day before START. */
export function dueSubscription(id: string, overrides: Partial<Subscription> = {}): Subscription {
  return subscription(id, {
    anchor_at: "2027-01-28T10:00:00.000Z",
    next_charge_at: "2027-02-28T10:00:00.000Z",
    token_id: "SBXTK0000000000000000018",
    card: undefined,
    created_at: "2027-01-28T10:00:00.000Z",
    updated_at: "2027-01-28T10:00:00.000Z",
    ...overrides,
  });
}

/** The charge engine's dependencies on fakes, plus a recording queue (the attempt sweep's and the charge run's). */
export function fakeChargeServices(options: MemoryBillingRepositoryOptions = {}) {
  const repository = new MemoryBillingRepository(options);
  const gateway = new ScriptedGateway();
  const queued: ChargeMessage[] = [];
  const deps: ChargeDeps & { readonly queue: { send(messages: readonly ChargeMessage[]): Promise<void> } } = {
    repository,
    gateway,
    clock: { now: () => new Date(START) },
    policy: DEFAULT_CHARGE_POLICY,
    coupons: partialPort<CouponStore>({}),
    queue: { send: async (messages) => void queued.push(...messages) },
  };
  return { repository, gateway, written: repository.written, queued, deps };
}
