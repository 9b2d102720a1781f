import { closedChargeEvent, finalizedInvoiceEvent } from "../base/events";
import type { ChargeAttempt, Subscription } from "../base/model";
import type { Clock } from "../ports/clock";
import { isInvoiced } from "./document-drafts";
import { type InvoicingDeps, invoiceFor } from "./finalize";

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
      | "token_id"
      | "recurring_id"
    >
  >;

/**
 * The ledger half of a close: the attempt's final state and the charge event it announces, in one conditional write.
 * A paid line closes finalized as its invoice (numbered first), announcing invoice.finalized too. The closed line, or
 * undefined when the attempt changed meanwhile (its new owner closes it).
 */
export async function closeLine(
  subscription: Subscription,
  attempt: ChargeAttempt,
  closing: Closing,
  deps: InvoicingDeps & { readonly clock: Clock },
): Promise<ChargeAttempt | undefined> {
  let line = attempt;
  // Twice at most: a numbering of the next invoice may give this line its number while it closes.
  for (let round = 0; round < 2; round += 1) {
    const { lease_until: _lease, ...rest } = line;
    const updated_at = deps.clock.now().toISOString();
    const closedAttempt: ChargeAttempt = { ...rest, ...closing, updated_at };
    const paid = closing.status === "succeeded" && isInvoiced(line);
    const invoice = paid ? await invoiceFor(subscription, closedAttempt, deps) : undefined;
    const invoiced =
      invoice === undefined ? closedAttempt : { ...closedAttempt, invoice_number: invoice.number };
    const closed = await deps.repository.updateAttempt(line, {
      expect: { status: line.status, lease_until: line.lease_until, invoice_number: invoice?.number },
      set: { ...closing, invoice_number: invoice?.number, updated_at },
      remove: ["lease_until"],
      events: [
        closedChargeEvent(invoiced, subscription),
        ...(invoice === undefined ? [] : [finalizedInvoiceEvent(invoice, subscription)]),
      ],
    });
    if (closed) return invoiced;
    if (invoice === undefined) return undefined;
    const now = await deps.repository.getAttempt(line);
    if (now?.invoice_number === undefined || now.invoice_number === invoice.number) return undefined;
    // The line holds another number: the one numbered here is given up (the next numbering takes it over).
    await deps.repository.voidDocument("invoice", invoice.number, line.order_id);
    if (now.status !== line.status || now.lease_until !== line.lease_until) return undefined;
    line = now;
  }
  return undefined;
}

/**
 * A line written closed as paid (a gateway-run charge: it is recorded only once the gateway confirms it) is finalized
 * as its invoice by a second write, announcing invoice.finalized. Once only: a line already numbered is left as it is
 * (its invoice exists; when the next numbering gave it the number, after a crash here, the event is not announced).
 */
export async function finalizeClosedLine(
  subscription: Subscription,
  line: ChargeAttempt,
  deps: InvoicingDeps,
): Promise<void> {
  if (line.status !== "succeeded" || line.invoice_number !== undefined || !isInvoiced(line)) return;
  const invoice = await invoiceFor(subscription, line, deps);
  await deps.repository.updateAttempt(line, {
    expect: { status: "succeeded", invoice_number: null },
    set: { invoice_number: invoice.number },
    events: [finalizedInvoiceEvent(invoice, subscription)],
  });
}
