import type { ChargeAttempt } from "../base/model";
import type { BillingRepository } from "../ports/billing-repository";

export interface ChargeListDeps {
  readonly repository: BillingRepository;
}

/**
 * A subscription's ledger, oldest first by creation (ad hoc lines, keyed after the scheduled periods, take their
 * place in time); undefined when there is no such subscription.
 */
export async function listCharges(
  subscriptionId: string,
  deps: ChargeListDeps,
): Promise<readonly ChargeAttempt[] | undefined> {
  const [subscription, ledger] = await Promise.all([
    deps.repository.getSubscription(subscriptionId),
    deps.repository.listAttempts(subscriptionId),
  ]);
  if (!subscription) return undefined;
  return [...ledger].sort((a, b) => Date.parse(a.created_at) - Date.parse(b.created_at));
}
