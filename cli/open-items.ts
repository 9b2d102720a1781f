import type { Command } from "commander";
import type { ChargeAttempt } from "../functions/core/base/model";
import { isOverdue } from "../functions/core/intake/attempt-sweep";
import type { LedgerStore, RefundStore } from "../functions/core/ports/billing-repository";
import { type CommandRunner, emit, orDash } from "./cli-io";
import { formatInstant } from "./dates";
import { repositoryOf, resolveTarget, withTarget } from "./target";
import { formatTable } from "./text-table";

/** An open charge attempt or refund: what the attempt sweep still has to settle. */
export interface OpenItem {
  readonly kind: "charge" | "refund";
  /** The order_id of a charge, the refund_id of a refund. */
  readonly id: string;
  readonly subscription_id: string;
  readonly status: string;
  readonly amount: string;
  readonly currency: string;
  readonly created_at: string;
  /** When the sweep takes it next (or whoever holds it must be done). */
  readonly lease_until: string | null;
  readonly resmsg: string | null;
  /** Open past a day: the SweepItemsOverdue alarm names it. */
  readonly overdue: boolean;
}

/** What an open attempt and an open refund both tell. */
type OpenRecord = Pick<
  ChargeAttempt,
  "subscription_id" | "status" | "amount" | "currency" | "created_at" | "lease_until" | "resmsg"
> & { readonly status: string };

const itemOf = (kind: OpenItem["kind"], id: string, record: OpenRecord, now: Date): OpenItem => ({
  kind,
  id,
  subscription_id: record.subscription_id,
  status: record.status,
  amount: record.amount,
  currency: record.currency,
  created_at: record.created_at,
  lease_until: record.lease_until ?? null,
  resmsg: record.resmsg ?? null,
  overdue: isOverdue(record.created_at, now),
});

/** Every open attempt and refund, from the open indexes (never a Scan), oldest first. */
async function openItems(repository: LedgerStore & RefundStore, now: Date): Promise<OpenItem[]> {
  // The indexes are ordered by lease (ISO strings): leases before the last four-digit year are every open item.
  const ever = new Date("9999-12-31T23:59:59.999Z");
  const items: OpenItem[] = [];
  for await (const page of repository.listOpenAttempts(ever))
    items.push(...page.map((line) => itemOf("charge", line.order_id, line, now)));
  for await (const page of repository.listOpenRefunds(ever))
    items.push(...page.map((refund) => itemOf("refund", refund.refund_id, refund, now)));
  return items.sort((a, b) => a.created_at.localeCompare(b.created_at));
}

export function addOpenCommands(program: Command, run: CommandRunner): void {
  program
    .command("open")
    .description("what the attempt sweep has still to settle")
    .command("list")
    .description(
      "open charge attempts and refunds (outcome not known yet), oldest first, from the open indexes",
    )
    .option("--overdue", "only those open for over a day (the SweepItemsOverdue alarm)")
    .action(
      run(async (command, out) => {
        const onlyOverdue = command.opts().overdue === true;
        await withTarget(await resolveTarget(command), async (session) => {
          const repository = await repositoryOf(session);
          const all = await openItems(repository, session.runtime.clock.now());
          const items = onlyOverdue ? all.filter((item) => item.overdue) : all;
          emit(out, { items }, () => [
            formatTable(
              [
                "KIND",
                "ID",
                "STATUS",
                "AMOUNT",
                "CREATED",
                "SWEPT FROM",
                "OVERDUE",
                { title: "NOTE", fit: "cut" },
              ],
              items.map((item) => [
                item.kind,
                item.id,
                item.status,
                `${item.amount} ${item.currency}`,
                formatInstant(item.created_at),
                item.lease_until === null ? "-" : formatInstant(item.lease_until),
                item.overdue ? "yes" : "-",
                orDash(item.resmsg),
              ]),
            ),
            `${items.length} open${onlyOverdue ? " past a day" : ""}: the attempt sweep settles each by retrieve; never charge or refund them again by hand`,
          ]);
        });
      }),
    );
}
