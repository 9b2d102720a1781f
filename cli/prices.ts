import type { Command } from "commander";
import { z } from "zod";
import { priceViewOf } from "../functions/api/price-schemas";
import { type CommandRunner, emitPage, orDash, pageOrBadCursor, parseLimit } from "./cli-io";
import { formatInstant } from "./dates";
import { pricesOf, resolveTarget, withTarget } from "./target";
import { formatTable } from "./text-table";

// The catalog's prices (README, Catalog), read from the table as GET /v1/prices reads them.

type PriceView = ReturnType<typeof priceViewOf>;

/** Prices as a table, by id. */
export function priceTable(prices: readonly PriceView[]): string {
  return formatTable(
    ["ID", "PRODUCT", "AMOUNT", "EVERY", "TRIAL", "LOOKUP KEY", "ACTIVE", "CREATED"],
    prices.map((price) => [
      price.price_id,
      price.product.name,
      `${price.amount} ${price.currency}`,
      `${price.interval_months} mo`,
      price.trial_days === null ? "-" : `${price.trial_days} d`,
      orDash(price.lookup_key),
      price.active ? "yes" : "no",
      formatInstant(price.created_at),
    ]),
  );
}

const listOptions = z.object({
  limit: z.number(),
  cursor: z.string().optional(),
  active: z.boolean().optional(),
});

export function addPricesCommands(program: Command, run: CommandRunner): void {
  program
    .command("prices")
    .description("read the catalog's prices")
    .command("list")
    .description("prices by id, as GET /v1/prices lists them")
    .option("--active", "only the prices that take new subscriptions")
    .option("--limit <n>", "at most this many", parseLimit, 50)
    .option("--cursor <cursor>", "where the previous list stopped (it prints the next cursor)")
    .action(
      run(async (command, out) => {
        const { limit, cursor, active } = listOptions.parse(command.opts());
        await withTarget(await resolveTarget(command), async (session) => {
          const { prices } = await pricesOf(session);
          const page = await pageOrBadCursor(() => prices.listPrices({ active }, { limit, cursor }));
          emitPage(out, "prices", page.prices.map(priceViewOf), page.cursor, priceTable);
        });
      }),
    );
}
