import { signUpWithCard } from "../../functions/core/signup";
import type { BillingStack } from "../../local/billing-stack";

/** Signs up one token subscription per card through the sandbox's non-ui payment; returns their ids in order. */
export async function signUpCards(stack: BillingStack, cards: readonly string[]): Promise<string[]> {
  const ids: string[] = [];
  for (const [n, number] of cards.entries()) {
    const signup = await signUpWithCard(
      {
        customer: { name: `Customer ${n}`, email: `customer${n}@example.com` },
        plan: { amount: "29.00", currency: "USD", interval_months: 1 },
        billing: "token",
        card: { number, expiry: "203012", cvc: "123" },
      },
      stack.services,
    );
    if (signup.kind !== "active") throw new Error(`sign-up ${n} was ${signup.kind}`);
    ids.push(signup.subscription.subscription_id);
  }
  return ids;
}
