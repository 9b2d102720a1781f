import { closedChargeEvent, finalizedInvoiceEvent } from "../base/events";
import type { ChargeAttempt, Subscription } from "../base/model";
import type { Clock } from "../ports/clock";
import { closedWith, closeWithDocument } from "./document-close";
import { isInvoiced } from "./document-drafts";
import { type InvoicingDeps, invoiceFor } from "./finalize";
import { inTurn } from "./sequence-turns";

// The write that closes a ledger line. Every close goes through it, so a paid line is never closed without its
// invoice: the charge engine, ad hoc charges, sign-ups and new cards' payments share it.

export type Closing = Pick<ChargeAttempt, "status"> &
  Partial<
    Pick<
      ChargeAttempt,
      | "rescode"
      | "resmsg"
      | "errcode"
      | "dead_end"
      | "decline_reason"
      | "transaction_id"
      | "billed"
      | "token_id"
      | "recurring_id"
    >
  >;

/**
 * The ledger half of a close: the attempt's final state and the charge event it announces, in one conditional write.
 * A paid line closes finalized as its invoice (numbered first), announcing invoice.finalized too. The closed line, or
 * undefined when the attempt changed meanwhile (its new owner closes it).
 */
export function closeLine(
  subscription: Subscription,
  attempt: ChargeAttempt,
  closing: Closing,
  deps: InvoicingDeps & { readonly clock: Clock },
): Promise<ChargeAttempt | undefined> {
  const closedAs = (line: ChargeAttempt) => closedWith(line, closing, deps.clock.now());
  return closeWithDocument(
    attempt,
    {
      kind: "invoice",
      document:
        closing.status === "succeeded" && isInvoiced(attempt)
          ? (line) => invoiceFor(subscription, closedAs(line), deps)
          : undefined,
      async write(line, invoice) {
        const closed = closedAs(line);
        const invoiced = invoice === undefined ? closed : { ...closed, invoice_number: invoice.number };
        const written = await deps.repository.updateAttempt(line, {
          expect: { status: line.status, lease_until: line.lease_until, invoice_number: invoice?.number },
          set: { ...closing, invoice_number: invoice?.number, updated_at: closed.updated_at },
          remove: ["lease_until"],
          events: [
            closedChargeEvent(invoiced, subscription),
            ...(invoice === undefined ? [] : [finalizedInvoiceEvent(invoice, subscription)]),
          ],
        });
        return written ? invoiced : undefined;
      },
      read: (line) => deps.repository.getAttempt(line),
      numberOf: (line) => line.invoice_number,
      holderOf: (line) => line.order_id,
    },
    deps.repository,
  );
}

/**
 * A line written closed as paid (a gateway-run charge: it is recorded only once the gateway confirms it) is finalized
 * as its invoice by a second write, announcing invoice.finalized. Once only: a line already numbered is left as it is
 * (its invoice exists, announced by whichever write numbered it: this one, or the next numbering's after a crash here).
 */
export async function finalizeClosedLine(
  subscription: Subscription,
  line: ChargeAttempt,
  deps: InvoicingDeps,
): Promise<void> {
  if (line.status !== "succeeded" || line.invoice_number !== undefined || !isInvoiced(line)) return;
  const invoice = await inTurn("invoice", () => invoiceFor(subscription, line, deps));
  await deps.repository.updateAttempt(line, {
    expect: { status: "succeeded", invoice_number: null },
    set: { invoice_number: invoice.number },
    events: [finalizedInvoiceEvent(invoice, subscription)],
  });
}
