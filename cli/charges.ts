import type { Command } from "commander";
import type { ChargeView } from "../functions/api/merchant-api-views";
import { chargeView } from "../functions/api/views";
import { listCharges } from "../functions/core/charging/charge-list";
import type { SettlementRecord } from "../functions/core/ports/settlement-store";
import { argumentsOf, CliError, type CommandRunner, emit, noSubscription, orDash } from "./cli-io";
import { formatDay, formatInstant } from "./dates";
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
 * One line per charge a coupon took part in: what it took off the amount before the discount, and which coupon. Under
 * the table, not a column of it: a ledger's widest rows already fill the 120 columns.
 */
function discountLines(charges: readonly ChargeView[]): string[] {
  return charges.flatMap(({ charge_id, discount, amount_before_discount, currency, coupon_id }) => {
    if (Number(discount) === 0) return [];
    const coupon = coupon_id === undefined ? "" : ` (coupon ${coupon_id})`;
    return [wrapLine(`${charge_id}: ${discount} off ${amount_before_discount} ${currency}${coupon}.`)];
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
 * The ledger as a table (charges list, subscriptions show), each discount and decline explained below it: AMOUNT is
 * what was charged. A charge's id is <subscription>-<period>-<attempt>, so period and attempt have no columns of their
 * own (--json has them).
 */
export function chargeTable(charges: readonly ChargeView[]): string {
  const amount = amountColumn("AMOUNT", charges);
  const table = formatTable(
    ["CHARGE", "KIND", amount.title, "STATUS", "REFUNDED", "TRANSACTION", "CREATED"],
    charges.map((charge) => [
      charge.charge_id,
      charge.kind,
      amount.cell(charge.amount, charge.currency),
      charge.status,
      Number(charge.refunded_amount) === 0 ? "-" : amount.cell(charge.refunded_amount, charge.currency),
      orDash(charge.transaction_id),
      formatInstant(charge.created_at),
    ]),
  );
  return [table, ...discountLines(charges), ...declineLines(charges)].join("\n");
}

/**
 * One line per movement the gateway paid out (README, Payouts): what it paid, when, and what it kept; a sale under its
 * charge's id, a refund under its refund's, a chargeback under the charge it took back.
 */
function payoutLines(charges: readonly ChargeView[], settlements: readonly SettlementRecord[]): string[] {
  const byTransaction = new Map(charges.map((charge) => [charge.transaction_id, charge.charge_id]));
  return settlements.map((settlement) => {
    const charge = byTransaction.get(settlement.transaction_id) ?? settlement.order_id;
    const what =
      settlement.kind === "sale"
        ? charge
        : settlement.kind === "refund"
          ? `refund ${settlement.refund_id ?? settlement.transaction_id} of ${charge}`
          : `chargeback of ${charge}`;
    return wrapLine(
      `${what}: paid out ${settlement.net} ${settlement.currency} on ${formatDay(settlement.remittance_date)} ` +
        `(gross ${settlement.gross}, fees ${settlement.fees}, VAT ${settlement.vat}).`,
    );
  });
}

export function addChargesCommands(program: Command, run: CommandRunner): void {
  program
    .command("charges")
    .description("read the ledger")
    .command("list")
    .description(
      "a subscription's charge attempts, oldest first, and what the gateway paid out for each (reconciled payouts)",
    )
    .argument("<subscription-id>", "subscription id")
    .action(
      run(async (command, out) => {
        const [id = ""] = argumentsOf(command);
        await withTarget(await resolveTarget(command), async (session) => {
          const charges = await listCharges(id, { repository: await repositoryOf(session) });
          if (charges === undefined) throw new CliError(noSubscription(id));
          const views = charges.map((charge) => chargeView(charge));
          const settlements = await (await repositoryOf(session)).listSettlements(id);
          emit(out, { subscription_id: id, charges: views, settlements }, () => [
            chargeTable(views),
            ...payoutLines(views, settlements),
          ]);
        });
      }),
    );
}
