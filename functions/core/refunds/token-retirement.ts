import type { Subscription } from "../base/model";
import { failureReason } from "../base/outcome";
import type { TokenStore } from "../ports/billing-repository";
import type { Clock } from "../ports/clock";
import type { ChargeGateway } from "../ports/payment-gateway";

// A token the merchant no longer needs is deleted at the gateway (token deletion, README, The real gateway): a canceled
// subscription's token can never be charged by mistake, or by anyone who obtained it.

export interface TokenRetirementDeps {
  readonly repository: TokenStore;
  readonly gateway: Pick<ChargeGateway, "deleteToken">;
  readonly clock: Clock;
}

export type TokenRetirement =
  /** Deleted now, or nothing left to delete (no token, or it is already deleted, expired or revoked). */
  | { readonly kind: "retired"; readonly note: string }
  /** The gateway refused the deletion: retrying the same request will not help; a human should look. */
  | { readonly kind: "refused"; readonly note: string }
  /** The gateway could not be asked, or did not answer: ask again later. */
  | { readonly kind: "retry"; readonly note: string };

/**
 * Deletes the subscription's token at the gateway, then marks it deleted in the vault. Safe to repeat: a token no
 * longer active is left alone, and the mark is a compare-and-set on its status.
 */
export async function retireToken(
  subscription: Pick<Subscription, "token_id">,
  deps: TokenRetirementDeps,
): Promise<TokenRetirement> {
  const tokenId = subscription.token_id;
  if (tokenId === undefined) return { kind: "retired", note: "no token" };
  const token = await deps.repository.getToken(tokenId);
  if (token === undefined || token.status !== "active") {
    return { kind: "retired", note: `token ${token?.status ?? "not in the vault"}` };
  }
  const outcome = await deps.gateway.deleteToken(tokenId);
  switch (outcome.kind) {
    case "success":
      await deps.repository.updateToken(tokenId, {
        expect: { status: "active" },
        set: { status: "deleted", updated_at: deps.clock.now().toISOString() },
      });
      return { kind: "retired", note: "token deleted at the gateway" };
    case "declined":
    case "invalid":
      return { kind: "refused", note: `token deletion refused (${failureReason(outcome)})` };
    default:
      return { kind: "retry", note: `token deletion not confirmed (${failureReason(outcome)})` };
  }
}
