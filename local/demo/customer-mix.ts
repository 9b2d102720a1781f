import type { Plan } from "../../functions/core/base/model";
import { createPrng, deriveSeed, type Prng } from "../../sandbox/shared/prng";

/** What happens to one customer in the scripted month. */
export type Journey =
  /** Non-ui sign-up with an approving card; renews every month. */
  | "renews"
  /** Non-ui sign-up with a card that declines every REBILL: dunning, then cancellation. */
  | "declines-on-rebill"
  /** Non-ui sign-up with an expired or stolen card: refused at once (422). */
  | "signup-declined"
  /** Renews, but its token expires mid-month: the renewal finds it dead and the subscription waits for a card. */
  | "token-expires"
  /** Renews, but the card is blocked over the renewal and unblocked before the first dunning retry: recovered. */
  | "card-blocked"
  /** Payment window, token billing, completed with an approving card. */
  | "window"
  /** Payment window completed with a declining card: the checkout ends. */
  | "window-declined"
  /** Payment window never completed. */
  | "window-abandoned"
  /** Payment window registering a plan the gateway charges itself. */
  | "gateway-recurring"
  /** A card that declines every REBILL: past_due at the renewal, recovered by a new card (payment-method update). */
  | "card-update"
  /** Cancels at the end of its first paid period: charged nothing more, canceled at the renewal. */
  | "cancel-at-period-end"
  /** Paused before the renewal, resumed after it: the schedule re-anchored at the resume, charged then. */
  | "pause-resume"
  /** Upgrades mid-period with proration charge_now: the difference is charged at once, the new amount afterwards. */
  | "upgrade"
  /** Starts with a 14-day trial: the card verified and refunded, the first period charged when the trial ends. */
  | "trial";

const JOURNEYS: readonly Journey[] = [
  "renews",
  "declines-on-rebill",
  "signup-declined",
  "token-expires",
  "card-blocked",
  "window",
  "window-declined",
  "window-abandoned",
  "gateway-recurring",
  "card-update",
  "cancel-at-period-end",
  "pause-resume",
  "upgrade",
  "trial",
];

/** The lifecycle journeys' share of the card sign-ups, each. */
const LIFECYCLE_SHARE = 0.03;

export type SignupFlow = "card" | "window-token" | "window-recurring";

export function flowOf(journey: Journey): SignupFlow {
  switch (journey) {
    case "window":
    case "window-declined":
    case "window-abandoned":
      return "window-token";
    case "gateway-recurring":
      return "window-recurring";
    default:
      return "card";
  }
}

export interface DemoCustomer {
  readonly index: number;
  readonly name: string;
  readonly email: string;
  readonly journey: Journey;
  /** A sandbox test card (README "Test cards"): fake, never printed. */
  readonly cardNumber: string;
  readonly plan: Plan;
  /** Seats, when more than one. */
  readonly quantity?: number;
  /** Signs up with the month's coupon (its code). */
  readonly coupon?: boolean;
}

const APPROVING = ["4111111111111111", "5555555555554444"];
const CARD_OF: Readonly<Record<Journey, readonly string[]>> = {
  renews: APPROVING,
  "token-expires": ["4111111111111111"],
  "card-blocked": ["4111111111111111"],
  window: APPROVING,
  "window-abandoned": APPROVING,
  "gateway-recurring": APPROVING,
  "declines-on-rebill": ["4000000000000341"],
  "card-update": ["4000000000000341"],
  "cancel-at-period-end": APPROVING,
  "pause-resume": APPROVING,
  upgrade: APPROVING,
  trial: APPROVING,
  // Expired card (DC54), stolen card (DC43).
  "signup-declined": ["4000000000000069", "4000000000009979"],
  // Do not honor (DC05).
  "window-declined": ["4000000000000002"],
};

const AMOUNTS = ["9.90", "19.90", "29.00", "49.50"];
/** Share of plans billed in EUR; the rest in USD. */
const EUR_SHARE = 0.15;
/** Among the customers who simply renew: the shares on an annual plan, with seats, and signing up with a coupon. */
const ANNUAL_SHARE = 0.15;
const SEATS_SHARE = 0.2;
const COUPON_SHARE = 0.15;

/** The fewest customers that still take every journey, at least one of each. */
export const MIN_CUSTOMERS = 17;

const share = (total: number, fraction: number) => Math.max(1, Math.round(total * fraction));

/** How many customers take each journey: the mix, at least one of each however few customers there are. */
export function journeyCounts(customers: number): Readonly<Record<Journey, number>> {
  if (!Number.isInteger(customers) || customers < MIN_CUSTOMERS)
    throw new RangeError(`the demo needs at least ${MIN_CUSTOMERS} customers (one of each journey)`);
  const recurring = share(customers, 0.075);
  const windows = Math.max(3, Math.round(customers * 0.175));
  const windowDeclined = share(windows, 0.06);
  const windowAbandoned = share(windows, 0.06);
  const card = customers - recurring - windows;
  const signupDeclined = share(card, 0.06);
  const declinesOnRebill = share(card, 0.08);
  const tokenExpires = share(card, 0.04);
  const cardBlocked = share(card, 0.04);
  const lifecycle = share(card, LIFECYCLE_SHARE);
  return {
    renews: card - signupDeclined - declinesOnRebill - tokenExpires - cardBlocked - 5 * lifecycle,
    "declines-on-rebill": declinesOnRebill,
    "signup-declined": signupDeclined,
    "token-expires": tokenExpires,
    "card-blocked": cardBlocked,
    window: windows - windowDeclined - windowAbandoned,
    "window-declined": windowDeclined,
    "window-abandoned": windowAbandoned,
    "gateway-recurring": recurring,
    "card-update": lifecycle,
    "cancel-at-period-end": lifecycle,
    "pause-resume": lifecycle,
    upgrade: lifecycle,
    trial: lifecycle,
  };
}

const pick = <T>(random: Prng, items: readonly T[]): T => {
  const item = items[Math.floor(random.next() * items.length)];
  if (item === undefined) throw new RangeError("nothing to pick from");
  return item;
};

/** The month's customers in sign-up order: the mix shuffled, cards and plans drawn, all from the seed. */
export function planCustomers(customers: number, seed: number): DemoCustomer[] {
  const random = createPrng(deriveSeed(seed, "demo:customers"));
  const counts = journeyCounts(customers);
  const journeys = JOURNEYS.flatMap((journey) => Array.from({ length: counts[journey] }, () => journey))
    .map((journey) => ({ journey, order: random.next() }))
    .sort((a, b) => a.order - b.order);
  return journeys.map(({ journey }, index) => {
    const amount = pick(random, AMOUNTS);
    const currency = random.next() < EUR_SHARE ? "EUR" : "USD";
    // Annual plans, seats and coupons go to customers who simply renew: the other journeys' scripts price their plans.
    const renews = journey === "renews";
    const annual = renews && random.next() < ANNUAL_SHARE;
    const seats = renews && random.next() < SEATS_SHARE ? 2 + Math.floor(random.next() * 4) : undefined;
    const coupon = renews && random.next() < COUPON_SHARE;
    return {
      index,
      name: `Demo Customer ${index + 1}`,
      email: `customer${index + 1}@demo.example`,
      journey,
      cardNumber: pick(random, CARD_OF[journey]),
      plan: { amount, currency, interval_months: annual ? 12 : 1 },
      ...(seats === undefined ? {} : { quantity: seats }),
      ...(coupon ? { coupon } : {}),
    };
  });
}
