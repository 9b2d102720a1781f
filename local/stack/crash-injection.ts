import type { z } from "zod";
import {
  chargeQueue,
  events,
  gateway,
  repository,
  webhookQueue,
  webhookTransport,
} from "../../functions/composition/components";
import type { Component, Composition } from "../../functions/composition/compose";
import { attemptKeyOf } from "../../functions/core/base/order-id";

/** What a worker process dying mid-protocol looks like to the code around it: the call throws, nothing after runs. */
export class SimulatedCrash extends Error {
  override readonly name = "SimulatedCrash";
}

/** A crash as the code around a handler sees it: the middleware logs it and rethrows a redacted error of its name. */
export const isSimulatedCrash = (error: unknown): boolean =>
  error instanceof Error && error.name === "SimulatedCrash";

function subscriptionOf(orderId: string): string | undefined {
  return attemptKeyOf(orderId)?.subscription_id;
}

/** The gateway, except that REBILLs of the chosen subscriptions crash before anything is sent. */
export const crashBeforeRebill = (subscriptionIds: ReadonlySet<string>) =>
  decoration(gateway, (built) => ({
    ...built,
    payments: {
      ...built.payments,
      async rebill(request) {
        const id = subscriptionOf(request.order_id);
        if (id !== undefined && subscriptionIds.has(id)) throw new SimulatedCrash("crashed before REBILL");
        return built.payments.rebill(request);
      },
    },
  }));

/**
 * The repository, except that committing a success of the chosen subscriptions crashes before the write: the
 * gateway has charged, our ledger still shows the attempt as claimed.
 */
export const crashBeforeCommit = (subscriptionIds: ReadonlySet<string>) =>
  decoration(repository, (built) => ({
    ...built,
    async updateAttempt(key, update) {
      if (update.set.status === "succeeded" && subscriptionIds.has(key.subscription_id))
        throw new SimulatedCrash("crashed before committing the charge");
      return built.updateAttempt(key, update);
    },
  }));

/**
 * Where a worker can die: between each step of the charge protocol (README, Exactly once: how a charge is made),
 * inside the attempt sweep, in event delivery between the bus taking the events and their outbox being marked, in
 * queue-webhooks once its deliveries are queued, and in send-webhooks once the endpoint has taken a delivery.
 */
export const CRASH_POINTS = [
  "afterClaim",
  "beforeCall",
  "afterCall",
  "afterClose",
  "afterAdvance",
  "attemptSweep",
  "afterPublish",
  "afterFanOut",
  "afterWebhookPost",
] as const;
export type CrashPoint = (typeof CRASH_POINTS)[number];

const CLOSING_STATUSES: readonly string[] = ["succeeded", "declined", "failed", "voided"];

/** One component of a composition, and what wraps what it builds. */
export interface Decoration<T> {
  readonly component: Component<string, z.ZodObject, T>;
  readonly decorate: (built: Awaited<T>) => Awaited<T>;
}

export const decoration = <T>(
  component: Component<string, z.ZodObject, T>,
  decorate: (built: Awaited<T>) => Awaited<T>,
): Decoration<T> => ({ component, decorate });

// biome-ignore lint/suspicious/noExplicitAny: a decoration of a component of any type.
export type AnyDecoration = Decoration<any>;

/**
 * A composition whose chosen components come out wrapped: the real handlers, composed over it as Lambda composes
 * over a container's environment, then meet a repository that dies after a write or a queue that sends twice.
 */
export function decoratedComposition(
  composition: Composition,
  decorations: readonly AnyDecoration[],
): Composition {
  return {
    check: (schema) => composition.check(schema),
    get<T>(component: Component<string, z.ZodObject, T>): T {
      const built = composition.get(component);
      const decorate = decorations.find((candidate) => candidate.component === component)?.decorate;
      if (decorate === undefined) return built;
      return (built instanceof Promise ? built.then(decorate) : decorate(built)) as T;
    },
  };
}

/**
 * Kills the worker at random protocol steps, at `rate` per step, from a seeded stream: the same seed crashes the
 * same steps of the same run. A crash after a write leaves the write done (the process died before the next line).
 * Each set of decorations is what one function's services meet (compose them with decoratedComposition).
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

  /** The charge worker's repository and gateway, dying between claim, call, close and advance. */
  chargeWorker(): readonly AnyDecoration[] {
    return [
      decoration(repository, (built) => ({
        ...built,
        claimAttempt: async (attempt, events) => {
          const claimed = await built.claimAttempt(attempt, events);
          this.maybeCrash("afterClaim");
          return claimed;
        },
        updateAttempt: async (key, update) => {
          const updated = await built.updateAttempt(key, update);
          if (CLOSING_STATUSES.includes(update.set.status ?? "")) this.maybeCrash("afterClose");
          return updated;
        },
        updateSubscription: async (id, update) => {
          const updated = await built.updateSubscription(id, update);
          this.maybeCrash("afterAdvance");
          return updated;
        },
      })),
      decoration(gateway, (built) => ({
        ...built,
        payments: {
          ...built.payments,
          rebill: async (request) => {
            this.maybeCrash("beforeCall");
            const outcome = await built.payments.rebill(request);
            this.maybeCrash("afterCall");
            return outcome;
          },
        },
      })),
    ];
  }

  /** The attempt sweep's repository, gateway and queue, dying before any of its reads or writes. */
  attemptSweep(): readonly AnyDecoration[] {
    const crashing =
      <A extends unknown[], R>(call: (...args: A) => Promise<R>) =>
      (...args: A): Promise<R> => {
        this.maybeCrash("attemptSweep");
        return call(...args);
      };
    return [
      decoration(repository, (built) => ({
        ...built,
        getSubscription: crashing(built.getSubscription),
        updateAttempt: crashing(built.updateAttempt),
      })),
      decoration(gateway, (built) => ({
        ...built,
        payments: { ...built.payments, findOrder: crashing(built.payments.findOrder) },
      })),
      decoration(chargeQueue, (built) => ({ ...built, send: crashing(built.send) })),
    ];
  }

  /**
   * Our webhooks: queue-webhooks dying once its deliveries are queued (the bus retries it: they are queued again),
   * send-webhooks once the endpoint answered, before the attempt is recorded (the message comes back: sent again).
   */
  webhooks(): readonly AnyDecoration[] {
    return [
      decoration(webhookQueue, (built) => ({
        ...built,
        send: async (messages) => {
          await built.send(messages);
          this.maybeCrash("afterFanOut");
        },
      })),
      decoration(webhookTransport, (built) => ({
        ...built,
        post: async (...args: Parameters<typeof built.post>) => {
          const outcome = await built.post(...args);
          this.maybeCrash("afterWebhookPost");
          return outcome;
        },
      })),
    ];
  }

  /** Event delivery's bus, dying after the bus took the events and before their outbox is marked. */
  delivery(): readonly AnyDecoration[] {
    return [
      decoration(events, (built) => ({
        ...built,
        publish: async (published) => {
          await built.publish(published);
          this.maybeCrash("afterPublish");
        },
      })),
    ];
  }
}
