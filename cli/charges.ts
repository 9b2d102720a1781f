import type { Command } from "commander";
import type { ChargeView } from "../functions/api/merchant-api-schemas";
import { chargeView } from "../functions/api/views";
import { listCharges } from "../functions/core/charge-list";
import { argumentsOf, CliError, type CommandRunner, emit, orDash } from "./cli-io";
import { repositoryOf, resolveTarget, withTarget } from "./target";
import { formatTable } from "./text-table";

/** What to do next about a decline, in words. */
const NEXT_STEPS = {
  retry_later: "the same card may pay later (dunning retries it)",
  new_card: "a new card is needed",
  authentication: "the cardholder must confirm the payment in the window",
} as const;

/** One line per declined charge: its codes, why, and what can be done. */
function declineLines(charges: readonly ChargeView[]): string[] {
  return charges.flatMap(({ charge_id, decline }) => {
    if (decline === undefined) return [];
    const codes = [decline.rescode, decline.errcode].filter((code) => code !== undefined).join(" ");
    const why = decline.message === undefined ? "" : ` ${decline.message}`;
    const next = decline.next_step === undefined ? "" : ` Next: ${NEXT_STEPS[decline.next_step]}.`;
    return [`${charge_id} declined (${codes}).${why}${next}`];
  });
}

/** The ledger as a table (charges list, subscriptions show), each decline explained below it. */
export function chargeTable(charges: readonly ChargeView[]): string {
  const table = formatTable(
    ["CHARGE", "KIND", "PERIOD", "ATTEMPT", "AMOUNT", "STATUS", "REFUNDED", "TRANSACTION", "CREATED"],
    charges.map((charge) => [
      charge.charge_id,
      charge.kind,
      String(charge.period),
      String(charge.attempt),
      `${charge.amount} ${charge.currency}`,
      charge.status,
      charge.refunded_amount,
      orDash(charge.transaction_id),
      charge.created_at,
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
          if (charges === undefined) throw new CliError(`no subscription ${id}`);
          const views = charges.map(chargeView);
          emit(out, { subscription_id: id, charges: views }, () => [chargeTable(views)]);
        });
      }),
    );
}
