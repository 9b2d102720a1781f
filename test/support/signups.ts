import { randomUUID } from "node:crypto";
import { z } from "zod";
import type { Plan } from "../../functions/core/base/model";
import { functionNamed } from "../../functions/function-table";
import { LambdaFunctions } from "../../local/lambda/lambda-functions";
import { type BillingStack, LOCAL_GATEWAY_TUNING } from "../../local/stack/billing-stack";
import { answerOf, apiEvent } from "./merchant-api";

/** What a card sign-up asks for: one customer, one plan, one test card. */
export interface CardSignup {
  readonly n: number;
  readonly number: string;
  readonly plan: Plan;
}

const created = z.object({ subscription_id: z.string(), status: z.literal("active") });

/**
 * Card sign-ups as a merchant's backend makes them: POST /v1/subscriptions (token billing, one Idempotency-Key
 * each), invoked as API Gateway invokes create-subscription. With `gatewayTimeoutMs`, over functions whose gateway
 * client waits that long (sign-ups beside a test's impatient charge path). Each must come out active: its id.
 */
export function cardSignups(stack: BillingStack, gatewayTimeoutMs?: number) {
  const functions =
    gatewayTimeoutMs === undefined
      ? stack.functions
      : new LambdaFunctions(stack.compose({ ...LOCAL_GATEWAY_TUNING, gatewayTimeoutMs }));
  const createSubscription = functions.invoker(functionNamed("create-subscription"));
  return async ({ n, number, plan }: CardSignup): Promise<string> => {
    const body = {
      customer: { name: `Customer ${n}`, email: `customer${n}@example.com` },
      plan,
      billing: "token",
      card: { number, expiry: "203012", cvc: "123" },
    };
    const answer = answerOf(
      await createSubscription(apiEvent("POST", "/v1/subscriptions", { body, idempotencyKey: randomUUID() })),
    );
    const signup = created.safeParse(answer.json);
    if (answer.status !== 201 || !signup.success)
      throw new Error(`sign-up ${n} answered ${answer.status}: ${answer.text}`);
    return signup.data.subscription_id;
  };
}

/** Signs up one token subscription per card, in order; returns their ids. */
export async function signUpCards(stack: BillingStack, cards: readonly string[]): Promise<string[]> {
  const signUp = cardSignups(stack);
  const ids: string[] = [];
  for (const [n, number] of cards.entries()) {
    ids.push(await signUp({ n, number, plan: { amount: "29.00", currency: "USD", interval_months: 1 } }));
  }
  return ids;
}
