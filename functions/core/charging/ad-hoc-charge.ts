import { orBeingSettled } from "../base/after-the-gateway";
import { AD_HOC_FIRST_PERIOD, AD_HOC_LAST_PERIOD, isAdHocPeriod } from "../base/charge-kind";
import type { ChargeAttempt, Subscription } from "../base/model";
import { type InvalidInput, invalidAmount } from "../base/money";
import { recurringAmount, taxWithin } from "../base/plan-price";
import { type ChargeDeps, closeAttempt } from "./charge-engine";
import { pendingAttempt, recordUnknownOutcome, refusalClosing, voidAttempt } from "./ledger-lines";

export interface AdHocChargeCommand {
  readonly subscription_id: string;
  /** Omitted: the plan amount. */
  readonly amount?: string;
  /**
   * Identifies the request (a digest of its Idempotency-Key). Repeating it finds the line it made instead of
   * charging again, even once the API's idempotency record is gone (a crash after the claim, an expired record).
   */
  readonly request_key?: string;
}

/**
 * recorded: the ledger line as it stands; its status is the answer (succeeded; pending or unknown: settled through
 * retrieve; declined or failed: refused; voided: the gateway was unavailable and nothing was charged).
 */
export type AdHocChargeResult =
  | { readonly kind: "recorded"; readonly charge: ChargeAttempt }
  | { readonly kind: "not_found" }
  | { readonly kind: "not_chargeable"; readonly reason: NotChargeable }
  | InvalidInput;

/** Why nothing was charged without asking the gateway (a past_due subscription is charged: the gateway decides). */
export type NotChargeable =
  | "subscription_canceled"
  | "subscription_pending"
  | "no_stored_token"
  | "ad_hoc_range_exhausted";

const notChargeable = (reason: NotChargeable): AdHocChargeResult => ({ kind: "not_chargeable", reason });

/**
 * An ad hoc charge (README, Merchant API): a REBILL of the stored token outside the period schedule, on a ledger line
 * of its own in the ad hoc period range (charge-kind.ts), with the charge protocol's discipline: claim the line with
 * a conditional write, call, close with a conditional write. An unknown outcome stays open for the attempt sweep like
 * any attempt; closing an ad hoc line never moves the subscription.
 */
export async function chargeAdHoc(command: AdHocChargeCommand, deps: ChargeDeps): Promise<AdHocChargeResult> {
  const subscription = await deps.repository.getSubscription(command.subscription_id);
  if (!subscription) return { kind: "not_found" };
  if (subscription.status === "canceled") return notChargeable("subscription_canceled");
  if (subscription.status === "pending") return notChargeable("subscription_pending");
  const tokenId = subscription.token_id;
  if (tokenId === undefined) return notChargeable("no_stored_token");
  const invalid = command.amount && invalidAmount(command.amount, subscription.plan.currency);
  if (invalid) return invalid;

  const ledger = await deps.repository.listAttempts(subscription.subscription_id);
  // A voided line charged nothing: the same request may try again on a new line.
  const earlier = ledger.findLast(
    (line) =>
      command.request_key !== undefined &&
      line.request_key === command.request_key &&
      line.status !== "voided",
  );
  if (earlier) return { kind: "recorded", charge: earlier };

  const line = await claimNextLine(subscription, ledger, command, deps);
  if (!line) return notChargeable("ad_hoc_range_exhausted");
  return { kind: "recorded", charge: await chargeLine(subscription, tokenId, line, deps) };
}

/**
 * What a claimed line may carry beyond a charge: the request's key, what it is for (a window's card update, a card
 * verification), a longer lease (a window's).
 */
export type LineExtras = Partial<
  Pick<ChargeAttempt, "request_key" | "purpose" | "lease_until" | "verification">
>;

/** Claims the first free ad hoc line after those in the ledger; a concurrent claim moves it one further. */
export async function claimNextLine(
  subscription: Subscription,
  ledger: readonly ChargeAttempt[],
  command: Pick<AdHocChargeCommand, "amount"> & LineExtras,
  deps: Pick<ChargeDeps, "repository" | "clock" | "policy">,
): Promise<ChargeAttempt | undefined> {
  const taken = ledger.filter((line) => isAdHocPeriod(line.period)).map((line) => line.period);
  const { currency } = subscription.plan;
  const amount = command.amount ?? recurringAmount(subscription.plan, subscription.tax_rate);
  // The amount is charged as given: a tax added on top of the subscription's charges is its share of it (none on a
  // card's verification, given back whole).
  const tax = command.verification ? undefined : taxWithin(amount, currency, subscription.tax_rate);
  for (
    let period = Math.max(AD_HOC_FIRST_PERIOD - 1, ...taken) + 1;
    period <= AD_HOC_LAST_PERIOD;
    period += 1
  ) {
    const key = { subscription_id: subscription.subscription_id, period, attempt: 0 };
    const { amount: _, ...extras } = command;
    const line = {
      ...pendingAttempt(key, { amount, currency, ...(tax === undefined ? {} : { tax }) }, deps),
      ...extras,
    };
    if ((await deps.repository.claimAttempt(line)).claimed) return line;
  }
  return undefined;
}

/** REBILL of the claimed line, whose outcome is written on it; returns the line as stored afterwards. */
export async function chargeLine(
  subscription: Subscription,
  tokenId: string,
  line: ChargeAttempt,
  deps: ChargeDeps,
): Promise<ChargeAttempt> {
  const outcome = await deps.gateway.rebill({
    order_id: line.order_id,
    token_id: tokenId,
    amount: line.amount,
    currency: line.currency,
    customer: subscription.customer,
  });
  return orBeingSettled(
    async () => {
      switch (outcome.kind) {
        case "success":
          await closeAttempt(subscription, line, { status: "succeeded", ...outcome.value }, deps);
          break;
        case "declined":
        case "invalid":
          await closeAttempt(subscription, line, refusalClosing(outcome), deps);
          break;
        case "unknown":
          await recordUnknownOutcome(line, outcome.reason, deps);
          break;
        case "unavailable":
          // Refused before the gateway took it: nothing was charged, and nothing will retry it behind the caller's back.
          await voidAttempt(line, `gateway unavailable: ${outcome.reason}`, deps);
          break;
      }
      return (await deps.repository.getAttempt(line)) ?? line;
    },
    () => line,
  );
}
