import { checkoutView, subscriptionView } from "../../functions/api/merchant-api-views";
import type { TaxRate } from "../../functions/core/base/documents";
import type { Plan } from "../../functions/core/base/model";
import { mapConcurrently } from "../../functions/shared/map-concurrently";
import type { MerchantClient } from "../clients/merchant-client";
import { sandboxControl } from "../clients/sandbox-controls";
import type { BillingStack } from "../stack/billing-stack";
import type { LocalStack } from "../stack/local-stack";

// The chaos run's sign-ups: card sign-ups through the merchant API in batches over its first day, some with cards
// that decline every renewal or are charged back, and sign-ups through the payment window.

/** The run's first day: the first batch of sign-ups, and the clock's start. */
export const FIRST_SIGNUP_AT = new Date("2027-01-10T08:00:00.000Z");
export const MONTHLY: Plan = { amount: "19.90", currency: "USD", interval_months: 1 };
const APPROVING_CARD = "4111111111111111";
/** Approves the sign-up, declines every REBILL: walks the dunning schedule to cancellation. */
const DECLINING_ON_REBILL_CARD = "4000000000000341";
/** Approves; a signed CHARGEBACK webhook follows each payment a day later. */
const CHARGEBACK_CARD = "4000000000000259";
const CARD_EXPIRY = "203012";
export const CARD_CVC = "123";
/** What customers type in a window: a card that pays, and one refused for insufficient funds. */
export const WINDOW_CARDS = {
  approving: APPROVING_CARD,
  refused: "4000000000009995",
  expiry: CARD_EXPIRY,
  cvc: CARD_CVC,
};
/**
 * The merchant's tax rates: VAT added on top for customers in the United Kingdom (a quarter of the run's customers),
 * none for the others — so every kind of movement is also made, and audited, with a tax on top.
 */
export const CHAOS_TAX_RATES: TaxRate[] = [{ country: "GB", name: "VAT", percent: "20", inclusive: false }];
const TAXED_ADDRESS = {
  line1: "12 St James's Square",
  city: "London",
  postal_code: "SW1Y 4JH",
  country: "GB",
};
/** Every fourth customer lives where VAT is added on top. */
const addressOf = (n: number) => (n % 4 === 0 ? { address: TAXED_ADDRESS } : {});

/** Sign-ups are spread over a day in these batches, so renewals fall in several charge runs. */
const SIGNUP_BATCH_SPACING_MS = 8 * 3_600_000;
const SIGNUP_BATCHES = 3;
/** The last batch of sign-ups: a renewal's charge runs come once its anniversary has passed. */
export const LAST_SIGNUP_AT = new Date(
  FIRST_SIGNUP_AT.getTime() + (SIGNUP_BATCHES - 1) * SIGNUP_BATCH_SPACING_MS,
);

/**
 * Card sign-ups through the merchant API (POST /v1/subscriptions), before the faults go on (their own exactly-once
 * under faults is the sign-up tests' subject); one in twenty declines every REBILL, one in fifty is charged back
 * after each payment. Their answers join the leak scan.
 */
export async function signUp(
  stack: BillingStack,
  client: MerchantClient,
  count: number,
  random: () => number,
  progress: (step: string) => void,
  answers: string[],
): Promise<string[]> {
  const ids: string[] = [];
  const perBatch = Math.ceil(count / SIGNUP_BATCHES);
  for (let batch = 0; batch < SIGNUP_BATCHES && ids.length < count; batch += 1) {
    await stack.clock.set(new Date(FIRST_SIGNUP_AT.getTime() + batch * SIGNUP_BATCH_SPACING_MS));
    const size = Math.min(perBatch, count - ids.length);
    const cards = Array.from({ length: size }, () => {
      const draw = random();
      if (draw < 0.05) return DECLINING_ON_REBILL_CARD;
      return draw < 0.07 ? CHARGEBACK_CARD : APPROVING_CARD;
    });
    const signups = await mapConcurrently(cards, 16, (number, index) => {
      const n = ids.length + index;
      return client.post(
        "/v1/subscriptions",
        {
          customer: { name: `Chaos customer ${n}`, email: `chaos${n}@example.com`, ...addressOf(n) },
          plan: MONTHLY,
          billing: "token",
          card: { number, expiry: CARD_EXPIRY, cvc: CARD_CVC },
        },
        `chaos-signup-${n}`,
      );
    });
    for (const signup of signups) {
      if (signup.status !== 201) throw new Error(`a fault-free sign-up answered ${signup.status}`);
      answers.push(JSON.stringify(signup.body));
      ids.push(subscriptionView.parse(signup.body).subscription_id);
    }
    progress(`signed up ${ids.length} of ${count}`);
  }
  return ids;
}

/**
 * Sign-ups through the payment window, over HTTP as a merchant's site makes them: a checkout, the customer's card in
 * the window (completed by the sandbox), then status_url — often twice — through the intake queue.
 */
export async function signUpThroughWindows(
  local: LocalStack,
  client: MerchantClient,
  count: number,
  answers: string[],
): Promise<string[]> {
  const ids: string[] = [];
  for (let index = 0; index < count; index += 1) {
    const customer = {
      name: `Window customer ${index}`,
      email: `window${index}@example.com`,
      ...addressOf(index),
    };
    const answer = await client.post(
      "/v1/checkouts",
      { customer, plan: MONTHLY, billing: "token" },
      `chaos-window-${index}`,
    );
    answers.push(JSON.stringify(answer.body));
    const checkout = checkoutView.parse(answer.body);
    await sandboxControl(local.sandboxUrl, `/sandbox/windows/${checkout.fgkey}/complete`, {
      card_number: APPROVING_CARD,
      expiry_date: CARD_EXPIRY,
      cvc: CARD_CVC,
    });
    ids.push(checkout.subscription_id);
  }
  // The callbacks are processed from the intake queue: the sign-ups are active once it has drained.
  await local.advanceClock("PT0S");
  return ids;
}
