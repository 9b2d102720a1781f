import type { Ledger } from "../state/ledger";
import type { RecurringRecord } from "../state/recurring-store";
import type { TokenRecord } from "../state/token-store";
import type { AcquirerContext } from "./acquirer";
import { type Authorisation, type Authorised, authorise, cardOf, type FundingSource } from "./card-payments";
import { type RecurringPlan, registerRecurring } from "./recurring-charger";

/** The payment's `tokenbilling` object as checkout reads it (api/payment-requests.ts validates the request). */
export type Tokenbilling =
  | { readonly token_creation?: "Y" | "N"; readonly unique_token_id?: "Y" | "N" }
  | undefined;

/** Paying an order from a window or the non-ui payment: the authorisation plus what it may create. */
export interface Checkout extends Authorisation {
  readonly tokenbilling?: Tokenbilling;
  readonly recurring?: RecurringPlan;
}

export interface CheckedOut extends Authorised {
  /** Created by token_creation Y on an approved card payment. */
  readonly token?: TokenRecord;
  /** Registered by a `recurring` object on an approved card or token payment. */
  readonly recurring?: RecurringRecord;
}

/** unique_token_id Y while this merchant holds an active token for the same card. */
export function tokenConflict(
  ledger: Ledger,
  mid: string,
  source: FundingSource,
  tokenbilling: Tokenbilling,
): boolean {
  const card = source.kind === "card" ? source.presented.card : undefined;
  if (!card || tokenbilling?.token_creation !== "Y" || tokenbilling.unique_token_id !== "Y") return false;
  return ledger.tokens.findByFingerprint(mid, card.fingerprint).some((token) => token.status === "active");
}

/** Authorises, then (approved only) issues the requested token and registers the recurring plan. */
export function checkout(ctx: AcquirerContext, input: Checkout): CheckedOut {
  const authorised = authorise(ctx, input);
  if (authorised.refusal || authorised.payment.status === "NONE") return authorised;
  return { ...authorised, token: issueToken(ctx, input), recurring: register(ctx, input) };
}

function issueToken(ctx: AcquirerContext, input: Checkout): TokenRecord | undefined {
  const { source, tokenbilling } = input;
  if (source.kind !== "card" || tokenbilling?.token_creation !== "Y") return undefined;
  const created = ctx.ledger.tokens.create(
    input.mid,
    {
      card: source.presented.card,
      cardExpiry: source.presented.expiry,
      unique: tokenbilling.unique_token_id === "Y",
    },
    ctx.clock.now(),
  );
  return created.ok ? created.value : undefined;
}

function register(ctx: AcquirerContext, input: Checkout): RecurringRecord | undefined {
  const card = cardOf(input.source);
  if (!input.recurring || !card) return undefined;
  return registerRecurring(ctx, {
    mid: input.mid,
    orderId: input.orderId,
    currency: input.currency,
    card,
    plan: input.recurring,
  });
}
