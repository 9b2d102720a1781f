import { failureReason, type GatewayOutcome } from "../base/outcome";

/** The partner event our receiver subscribes to. */
export const PAYMENT_COMPLETED_EVENT = "PAYMENT_COMPLETED";

/** One of the merchant's webhook subscriptions at the partner API. */
export interface PartnerWebhookSubscription {
  readonly id: string;
  readonly endpointUrl: string;
  readonly eventTypes: string[];
  readonly isActive: boolean;
}

interface PartnerWebhookInput {
  readonly endpointUrl: string;
  readonly eventTypes: string[];
  readonly isActive?: boolean;
}

/** The partner API's webhook subscriptions of the merchant (the port; the partner client implements it). */
export interface PartnerWebhooks {
  listWebhooks(): Promise<GatewayOutcome<readonly PartnerWebhookSubscription[]>>;
  createWebhook(input: PartnerWebhookInput): Promise<GatewayOutcome<PartnerWebhookSubscription>>;
  updateWebhook(id: string, input: PartnerWebhookInput): Promise<GatewayOutcome<PartnerWebhookSubscription>>;
}

export interface PartnerWebhookSetupDeps {
  readonly partner: PartnerWebhooks;
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
    const updated = await deps.partner.updateWebhook(inactive.id, {
      endpointUrl: inactive.endpointUrl,
      eventTypes: inactive.eventTypes,
      isActive: true,
    });
    return updated.kind === "success"
      ? { kind: "reactivated", id: updated.value.id }
      : { kind: "failed", reason: `update: ${failureReason(updated)}` };
  }
  const created = await deps.partner.createWebhook({
    endpointUrl: deps.endpointUrl,
    eventTypes: [PAYMENT_COMPLETED_EVENT],
  });
  return created.kind === "success"
    ? { kind: "created", id: created.value.id }
    : { kind: "failed", reason: `create: ${failureReason(created)}` };
}
