import { failureReason } from "../gateway/outcome";
import type { PartnerClient } from "../gateway/partner-client";
import { PAYMENT_COMPLETED_EVENT } from "../gateway/schemas/partner";

export interface PartnerWebhookSetupDeps {
  readonly partner: Pick<PartnerClient, "listWebhooks" | "createWebhook" | "updateWebhook">;
  /** Our partner receiver: <PUBLIC_WEBHOOK_BASE_URL>/partner. */
  readonly endpointUrl: string;
}

export type PartnerWebhookSetup =
  | { readonly kind: "present" | "created" | "reactivated"; readonly id: string }
  | { readonly kind: "failed"; readonly reason: string };

/**
 * Makes sure the merchant has one active PAYMENT_COMPLETED subscription to our receiver (deploy or schedule):
 * nothing when it exists, re-activated when it exists inactive, created when absent. Listing first makes a repeated
 * run — and a run after a create whose outcome was lost — change nothing.
 */
export async function ensurePartnerWebhook(deps: PartnerWebhookSetupDeps): Promise<PartnerWebhookSetup> {
  const listed = await deps.partner.listWebhooks();
  if (listed.kind !== "success") return { kind: "failed", reason: `list: ${failureReason(listed)}` };
  const ours = listed.value.filter(
    (subscription) =>
      subscription.endpointUrl === deps.endpointUrl &&
      subscription.eventTypes.includes(PAYMENT_COMPLETED_EVENT),
  );
  const active = ours.find((subscription) => subscription.isActive);
  if (active) return { kind: "present", id: active.id };
  const [inactive] = ours;
  if (inactive) {
    const updated = await deps.partner.updateWebhook(undefined, inactive.id, {
      endpointUrl: inactive.endpointUrl,
      eventTypes: inactive.eventTypes,
      isActive: true,
    });
    return updated.kind === "success"
      ? { kind: "reactivated", id: updated.value.id }
      : { kind: "failed", reason: `update: ${failureReason(updated)}` };
  }
  const created = await deps.partner.createWebhook(undefined, {
    endpointUrl: deps.endpointUrl,
    eventTypes: [PAYMENT_COMPLETED_EVENT],
  });
  return created.kind === "success"
    ? { kind: "created", id: created.value.id }
    : { kind: "failed", reason: `create: ${failureReason(created)}` };
}
