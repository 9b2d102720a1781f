import { changeAnswer } from "../api/answers";
import { bodyOf, type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { cancelSubscriptionBody, subscriptionIdParams } from "../api/merchant-api-schemas";
import {
  type ChangeDeps,
  cancelSubscription as cancel,
  cancelAtPeriodEnd,
} from "../core/lifecycle/subscription-changes";

/**
 * DELETE /v1/subscriptions/{id}: now (with {"refund": "prorated" | "full"}, the last paid period given back), or with
 * {"at_period_end": true} at the end of the paid period. Idempotent by nature (canceling again answers the same, and
 * refunds nothing twice).
 */
export function run(request: HttpRequest, services: ChangeDeps): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    const { at_period_end, refund } = bodyOf(request, cancelSubscriptionBody);
    return changeAnswer(
      await (at_period_end === true ? cancelAtPeriodEnd(id, services) : cancel(id, services, refund)),
    );
  });
}
