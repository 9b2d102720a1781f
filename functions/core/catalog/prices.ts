import { MAX_GATEWAY_PLAN_INTERVAL_MONTHS } from "../base/billing-period";
import type { ChargePolicy } from "../base/charge-policy";
import type { BillingMode, Plan } from "../base/model";
import { type InvalidInput, invalidCurrency } from "../base/money";
import type { Clock, IdSource } from "../ports/clock";
import type { Price, PriceEdit, PriceStore } from "../ports/price-store";
import type { Conflict } from "./coupons";

// The catalog's prices (README, Catalog): made once, edited only in what never changes a price (active, lookup key,
// metadata), and taken by sign-ups and checkouts in place of a plan written inline.

export interface PriceDeps {
  readonly prices: PriceStore;
  readonly ids: IdSource;
  readonly clock: Clock;
  readonly policy: Pick<ChargePolicy, "currencies">;
}

/** A price as the merchant asks for it (the API's schema has checked each field). */
export type NewPrice = Omit<Price, "price_id" | "active" | "revision" | "created_at" | "updated_at">;

export type PriceCreation = { readonly kind: "created"; readonly price: Price } | InvalidInput | Conflict;

/** The prefix of every price id: a reference without it is a lookup key. */
export const PRICE_ID_PREFIX = "price_";

/** Creates a price, once per request key: a retried request answers the price its first try made. */
export async function createPrice(
  request: NewPrice,
  requestKey: string | undefined,
  deps: PriceDeps,
): Promise<PriceCreation> {
  const invalid = invalidCurrency(request.currency, deps.policy.currencies);
  if (invalid) return { ...invalid, field: "currency" };
  const at = deps.clock.now().toISOString();
  const price: Price = {
    ...request,
    price_id: requestKey === undefined ? deps.ids.priceId() : deps.ids.priceIdFor(requestKey),
    active: true,
    revision: 1,
    created_at: at,
    updated_at: at,
  };
  const created = await deps.prices.createPrice(price);
  if (created === "lookup_key_taken")
    return { kind: "conflict", reason: "another price has this lookup_key" };
  const stored = created === "exists" ? await deps.prices.getPrice(price.price_id) : price;
  return { kind: "created", price: stored ?? price };
}

export type PriceUpdate =
  | { readonly kind: "updated"; readonly price: Price }
  | { readonly kind: "not_found" }
  | Conflict;

/** Archives or restores a price, moves its lookup key, merges its metadata (an empty value removes a key). */
export async function updatePrice(
  priceId: string,
  edit: Omit<PriceEdit, "updated_at">,
  deps: Pick<PriceDeps, "prices" | "clock">,
): Promise<PriceUpdate> {
  const updated = await deps.prices.updatePrice(priceId, {
    ...edit,
    updated_at: deps.clock.now().toISOString(),
  });
  if (updated === "not_found") return { kind: "not_found" };
  if (updated === "lookup_key_taken")
    return { kind: "conflict", reason: "another price has this lookup_key" };
  if (updated === "busy")
    return { kind: "conflict", reason: "the price keeps changing meanwhile: repeat the edit" };
  const price = await deps.prices.getPrice(priceId);
  return price === undefined ? { kind: "not_found" } : { kind: "updated", price };
}

export type PricedPlan =
  | { readonly kind: "priced"; readonly plan: Plan & { readonly trial_days?: number } }
  | InvalidInput
  | Conflict;

/**
 * The plan a sign-up takes from the price `reference` names (its id, or its lookup key): refused naming `price` when
 * there is none or the gateway could not charge it itself; a 409 when it is archived.
 */
export async function planOfPrice(
  reference: string,
  billing: BillingMode,
  deps: Pick<PriceDeps, "prices">,
): Promise<PricedPlan> {
  const byId = reference.startsWith(PRICE_ID_PREFIX) ? await deps.prices.getPrice(reference) : undefined;
  const price = byId ?? (await deps.prices.findByLookupKey(reference));
  if (price === undefined)
    return { kind: "invalid_input", field: "price", message: "is not a price of this catalog" };
  if (!price.active)
    return { kind: "conflict", reason: "the price is archived: it takes no new subscriptions" };
  if (billing === "recurring" && price.interval_months > MAX_GATEWAY_PLAN_INTERVAL_MONTHS)
    return {
      kind: "invalid_input",
      field: "price",
      message: `bills every ${price.interval_months} months; a plan the gateway charges itself bills at most every ${MAX_GATEWAY_PLAN_INTERVAL_MONTHS}`,
    };
  return {
    kind: "priced",
    plan: {
      amount: price.amount,
      currency: price.currency,
      interval_months: price.interval_months,
      price_id: price.price_id,
      product: price.product.name,
      ...(price.trial_days === undefined ? {} : { trial_days: price.trial_days }),
    },
  };
}
