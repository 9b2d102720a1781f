import { chargeListAnswer } from "../api/answers";
import { type HttpRequest, type HttpResult, pathOf, serve } from "../api/http";
import { subscriptionIdParams } from "../api/merchant-api-schemas";
import type { ChargeListDeps } from "../core/charging/charge-list";
import { listCharges as list } from "../core/charging/charge-list";
import { documentLinksOf, type PageLinks } from "../pages/shared/page-links";

/** GET /v1/subscriptions/{id}/charges: scheduled and ad hoc lines, oldest first, a paid one with its invoice's link. */
export function run(
  request: HttpRequest,
  services: ChargeListDeps & { readonly links: PageLinks },
): Promise<HttpResult> {
  return serve(async () => {
    const { id } = pathOf(request, subscriptionIdParams);
    return chargeListAnswer(
      await list(id, services),
      (number) => documentLinksOf(services.links, { kind: "invoice", number }).hosted_url,
    );
  });
}
