import type { Command } from "commander";
import type { ChargeView } from "../functions/api/merchant-api-views";
import { chargeView } from "../functions/api/views";
import { listCharges } from "../functions/core/charging/charge-list";
import { argumentsOf, CliError, type CommandRunner, emit, noSubscription, orDash } from "./cli-io";
import { formatInstant } from "./dates";
import { repositoryOf, resolveTarget, withTarget } from "./target";
import { formatTable, wrapLine } from "./text-table";

/** What to do next about a decline, in words. */
const NEXT_STEPS = {
  retry_later: "the same card may pay later (dunning retries it)",
  new_card: "a new card is needed",
  authentication: "the cardholder must confirm the payment in the window",
} as const;

/** One line per declined charge (wrapped to fit): its codes, why, and what can be done. */
function declineLines(charges: readonly ChargeView[]): string[] {
  return charges.flatMap(({ charge_id, decline }) => {
    if (decline === undefined) return [];
    const codes = [decline.rescode, decline.errcode].filter((code) => code !== undefined).join(" ");
    const why = decline.message === undefined ? "" : ` ${decline.message}`;
    const next = decline.next_step === undefined ? "" : ` Next: ${NEXT_STEPS[decline.next_step]}.`;
    return [wrapLine(`${charge_id} declined (${codes}).${why}${next}`)];
  });
}

/**
 * An amount column: the currency in its title when every row has the same one (a subscription's ledger), else in
 * each cell.
 */
export function amountColumn(title: string, rows: readonly { readonly currency: string }[]) {
  const currencies = [...new Set(rows.map((row) => row.currency))];
  const [only] = currencies;
  return currencies.length === 1 && only !== undefined
    ? { title: `${title} ${only}`, cell: (amount: string) => amount }
    : { title, cell: (amount: string, currency: string) => `${amount} ${currency}` };
}

/**
 * The ledger as a table (charges list, subscriptions show), each decline explained below it. A charge's id is
 * <subscription>-<period>-<attempt>, so period and attempt have no columns of their own (--json has them). OFF is
 * what a coupon took off (AMOUNT is what was charged); OFF and REFUND are short so a year's ledger fits 120 columns.
 */
export function chargeTable(charges: readonly ChargeView[]): string {
  const amount = amountColumn("AMOUNT", charges);
  const table = formatTable(
    ["CHARGE", "KIND", amount.title, "OFF", "STATUS", "REFUND", "TRANSACTION", "CREATED"],
    charges.map((charge) => [
      charge.charge_id,
      charge.kind,
      amount.cell(charge.amount, charge.currency),
      Number(charge.discount) === 0 ? "-" : amount.cell(charge.discount, charge.currency),
      charge.status,
      Number(charge.refunded_amount) === 0 ? "-" : amount.cell(charge.refunded_amount, charge.currency),
      orDash(charge.transaction_id),
      formatInstant(charge.created_at),
    ]),
  );
  return [table, ...declineLines(charges)].join("\n");
}

export function addChargesCommands(program: Command, run: CommandRunner): void {
  program
    .command("charges")
    .description("read the ledger")
    .command("list")
    .description("a subscription's charge attempts, oldest first")
    .argument("<subscription-id>", "subscription id")
    .action(
      run(async (command, out) => {
        const [id = ""] = argumentsOf(command);
        await withTarget(await resolveTarget(command), async (session) => {
          const charges = await listCharges(id, { repository: await repositoryOf(session) });
          if (charges === undefined) throw new CliError(noSubscription(id));
          const views = charges.map(chargeView);
          emit(out, { subscription_id: id, charges: views }, () => [chargeTable(views)]);
        });
      }),
    );
}
