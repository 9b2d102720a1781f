import { multiplyAmounts } from "../shared/decimal";
import type { CardSummary } from "../state/card-summary";
import type { Conversion } from "../state/payment-store";

// Dynamic currency conversion (seed 000: base_*, foreign_*, dcc_rate): a card whose holder pays in the card's own
// currency has each payment converted into it. The merchant is still paid the order's amount; the customer's
// statement shows the converted one. The sandbox converts at fixed rates, so results are reproducible.

/** One unit of a currency in each card currency the sandbox converts into, and that currency's decimals. */
const RATES: Readonly<
  Record<string, { readonly decimals: number; readonly per: Readonly<Record<string, string>> }>
> = {
  KRW: { decimals: 0, per: { USD: "1350", EUR: "1460", JPY: "9.1", GBP: "1710" } },
};

/** What `card` pays for `amount` of `currency`, when its holder pays in another currency the sandbox has a rate for. */
export function conversionFor(
  card: CardSummary | undefined,
  currency: string,
  amount: string,
): Conversion | undefined {
  const into = card?.dccCurrency;
  if (into === undefined || into === currency) return undefined;
  const rates = RATES[into];
  const rate = rates?.per[currency];
  if (rates === undefined || rate === undefined) return undefined;
  return { currency: into, amount: multiplyAmounts(amount, rate, rates.decimals), rate };
}
