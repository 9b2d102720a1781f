import { attemptKeyOf } from "../../functions/core/order-id";
import type { BillingRepository, ChargeGateway } from "../../functions/core/ports";

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
