import type { EventDeliveryDeps } from "../functions/core/event-delivery";
import { attemptKeyOf } from "../functions/core/order-id";
import type { BillingRepository, ChargeGateway, ChargeQueue } from "../functions/core/ports";

/** What a worker process dying mid-protocol looks like to the code around it: the call throws, nothing after runs. */
export class SimulatedCrash extends Error {
  override readonly name = "SimulatedCrash";
}

function subscriptionOf(orderId: string): string | undefined {
  return attemptKeyOf(orderId)?.subscription_id;
}

/** The gateway, except that REBILLs of the chosen subscriptions crash before anything is sent. */
export function crashBeforeRebill(
  gateway: ChargeGateway,
  subscriptionIds: ReadonlySet<string>,
): ChargeGateway {
  return {
    findOrder: (order) => gateway.findOrder(order),
    findRefund: (refund) => gateway.findRefund(refund),
    deleteToken: (tokenId) => gateway.deleteToken(tokenId),
    refund: (request) => gateway.refund(request),
    async rebill(request) {
      const id = subscriptionOf(request.order_id);
      if (id !== undefined && subscriptionIds.has(id)) throw new SimulatedCrash("crashed before REBILL");
      return gateway.rebill(request);
    },
  };
}

/**
 * The repository, except that committing a success of the chosen subscriptions crashes before the write: the
 * gateway has charged, our ledger still shows the attempt as claimed.
 */
export function crashBeforeCommit(
  repository: BillingRepository,
  subscriptionIds: ReadonlySet<string>,
): BillingRepository {
  return {
    ...repository,
    async updateAttempt(key, update) {
      if (update.set.status === "succeeded" && subscriptionIds.has(key.subscription_id))
        throw new SimulatedCrash("crashed before committing the charge");
      return repository.updateAttempt(key, update);
    },
  };
}

/**
 * Where a worker can die: between each step of the charge protocol (README, Exactly once: how a charge is made),
 * inside the attempt sweep, and in event delivery between the bus taking the events and their outbox being marked.
 */
export const CRASH_POINTS = [
  "afterClaim",
  "beforeCall",
  "afterCall",
  "afterClose",
  "afterAdvance",
  "attemptSweep",
  "afterPublish",
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

const CLOSING_STATUSES: readonly string[] = ["succeeded", "declined", "failed", "voided"];

interface CrashableDeps {
  readonly repository: BillingRepository;
  readonly gateway: ChargeGateway;
}

/**
 * Kills the worker at random protocol steps, at `rate` per step, from a seeded stream: the same seed crashes the
 * same steps of the same run. A crash after a write leaves the write done (the process died before the next line).
 */
export class CrashInjector {
  readonly counts = Object.fromEntries(CRASH_POINTS.map((point) => [point, 0])) as Record<CrashPoint, number>;

  constructor(
    private readonly random: () => number,
    private readonly rate: number,
  ) {}

  maybeCrash(point: CrashPoint): void {
    if (this.random() >= this.rate) return;
    this.counts[point] += 1;
    throw new SimulatedCrash(`crashed at ${point}`);
  }

  /** The charge worker's dependencies, dying between claim, call, close and advance. */
  chargeDeps<D extends CrashableDeps>(deps: D): D {
    const { repository, gateway } = deps;
    // Typed as the port: a spread of the generic D would not notice a method left out here.
    const crashingGateway: ChargeGateway = {
      findOrder: (order) => gateway.findOrder(order),
      findRefund: (refund) => gateway.findRefund(refund),
      deleteToken: (tokenId) => gateway.deleteToken(tokenId),
      refund: (request) => gateway.refund(request),
      rebill: async (request) => {
        this.maybeCrash("beforeCall");
        const outcome = await gateway.rebill(request);
        this.maybeCrash("afterCall");
        return outcome;
      },
    };
    return {
      ...deps,
      repository: {
        ...repository,
        claimAttempt: async (attempt, events) => {
          const claimed = await repository.claimAttempt(attempt, events);
          this.maybeCrash("afterClaim");
          return claimed;
        },
        updateAttempt: async (key, update) => {
          const updated = await repository.updateAttempt(key, update);
          if (CLOSING_STATUSES.includes(update.set.status ?? "")) this.maybeCrash("afterClose");
          return updated;
        },
        updateSubscription: async (id, update) => {
          const updated = await repository.updateSubscription(id, update);
          this.maybeCrash("afterAdvance");
          return updated;
        },
      },
      gateway: crashingGateway,
    };
  }

  /** The attempt sweep's dependencies, dying before any of its reads or writes. */
  attemptSweepDeps<D extends CrashableDeps & { readonly queue: ChargeQueue }>(deps: D): D {
    const { repository, gateway, queue } = deps;
    const crashing =
      <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
      (...args: A): Promise<R> => {
        this.maybeCrash("attemptSweep");
        return call(...args);
      };
    return {
      ...deps,
      repository: {
        ...repository,
        getSubscription: crashing((id: string) => repository.getSubscription(id)),
        updateAttempt: crashing((key, update) => repository.updateAttempt(key, update)),
      },
      gateway: { ...gateway, findOrder: crashing((order) => gateway.findOrder(order)) },
      queue: { ...queue, send: crashing((messages) => queue.send(messages)) },
    };
  }

  /** Event delivery's dependencies, dying after the bus took the events and before their outbox is marked. */
  deliveryDeps(deps: EventDeliveryDeps): EventDeliveryDeps {
    return {
      ...deps,
      events: {
        publish: async (events) => {
          await deps.events.publish(events);
          this.maybeCrash("afterPublish");
        },
      },
    };
  }
}
