import { subscriptionPeriod } from "../base/billing-period";
import { isAdHocPeriod } from "../base/charge-kind";
import {
  type CreditNote,
  type DocumentLine,
  documentNumber,
  type Invoice,
  type InvoicingPolicy,
  includedTax,
  localDate,
  prefixOn,
  type TaxLine,
  taxRateFor,
} from "../base/documents";
import { type ChargeAttempt, planDue, type RefundRecord, type Subscription } from "../base/model";
import { fromCents, toCents } from "../base/money";
import { netBeforeDiscount, planTotalCents, quantityOf } from "../base/plan-price";

// What an invoice and a credit note say, drafted from the ledger line (or refund) and the subscription as they stand
// when the money moved. Numbered elsewhere (document-numbering.ts): a draft is given its sequence.

/**
 * When and how a document is issued: the merchant's policy; `on`, the instant it is dated (and its prefix's year)
 * by — when its charge or refund was made, so that a close finished later by the sweep numbers in the same sequence its
 * first numbering did; `at`, when it is finalized.
 */
export interface Issue {
  readonly policy: InvoicingPolicy;
  readonly on: Date;
  readonly at: Date;
}

const DEFAULT_PRODUCT = "Subscription";

/** The day before `end` (exclusive) in the merchant's dates: a period's last day. */
const lastDayBefore = (end: Date, timeZone: string) => localDate(new Date(end.getTime() - 1), timeZone);

/** The invoice line of a paid ledger line: the period's seats at the unit price, a plan change's proration, or ad hoc. */
function invoiceLine(subscription: Subscription, line: ChargeAttempt, issue: Issue): DocumentLine {
  const gross = netBeforeDiscount(line);
  const plan = planDue(subscription);
  const product = plan.product ?? DEFAULT_PRODUCT;
  const zone = issue.policy.time_zone;
  if (line.purpose === "proration") {
    const period = subscriptionPeriod(subscription, subscription.period - 1);
    return {
      description: `${product}: plan change, prorated`,
      quantity: 1,
      unit_amount: gross,
      amount: gross,
      period_start: localDate(issue.on, zone),
      ...(period === undefined ? {} : { period_end: lastDayBefore(period.end, zone) }),
    };
  }
  if (isAdHocPeriod(line.period))
    return { description: `${product}: one-off charge`, quantity: 1, unit_amount: gross, amount: gross };
  const period = subscriptionPeriod(subscription, line.period);
  const dates =
    period === undefined
      ? {}
      : { period_start: localDate(period.start, zone), period_end: lastDayBefore(period.end, zone) };
  // The seats at the unit price when they make the amount charged before the discount; else one line of that amount.
  const seats = planTotalCents(plan) === toCents(gross);
  return {
    description: product,
    quantity: seats ? quantityOf(plan) : 1,
    unit_amount: seats ? plan.amount : gross,
    amount: gross,
    ...dates,
  };
}

/** The tax a total includes at the merchant's rate for the buyer's country: none where that rate is not included. */
function includedTaxOf(total: string, currency: string, subscription: Subscription, issue: Issue): TaxLine[] {
  const rate = taxRateFor(issue.policy.tax_rates, subscription.customer.address?.country);
  return rate?.inclusive ? [includedTax(total, currency, rate)] : [];
}

/**
 * A paid line's tax: the one added on top of it, as it was charged; else the part of it the merchant's included rate
 * makes tax. A line charged without an added tax never gains one afterwards (the rate came later: nothing was charged).
 */
const lineTax = (line: ChargeAttempt, subscription: Subscription, issue: Issue): TaxLine[] =>
  line.tax === undefined
    ? includedTaxOf(line.amount, line.currency, subscription, issue)
    : [{ name: line.tax.name, percent: line.tax.percent, amount: line.tax.amount, inclusive: false }];

/** The fields every document shares, for the one at `sequence` of `prefix`. */
function heading(subscription: Subscription, issue: Issue, prefix: string, sequence: number) {
  const { name, email, address, tax_id, external_id } = subscription.customer;
  return {
    number: documentNumber(prefix, sequence),
    prefix,
    sequence,
    status: "finalized" as const,
    subscription_id: subscription.subscription_id,
    issued_at: issue.at.toISOString(),
    issue_date: localDate(issue.on, issue.policy.time_zone),
    seller: issue.policy.seller,
    buyer: { name, email, address, tax_id, external_id },
  };
}

/** The prefix of a document issued now. */
export const invoicePrefix = (issue: Issue) =>
  prefixOn(issue.policy.invoice_prefix, localDate(issue.on, issue.policy.time_zone));
export const creditNotePrefix = (issue: Issue) =>
  prefixOn(issue.policy.credit_note_prefix, localDate(issue.on, issue.policy.time_zone));

/** The invoice of a paid line, drafted for `sequence`. */
export function draftInvoice(
  subscription: Subscription,
  line: ChargeAttempt,
  issue: Issue,
  sequence: number,
): Invoice {
  const item = invoiceLine(subscription, line, issue);
  return {
    kind: "invoice",
    ...heading(subscription, issue, invoicePrefix(issue), sequence),
    currency: line.currency,
    lines: [item],
    subtotal: item.amount,
    discount: line.discount ?? fromCents(0, line.currency),
    tax: lineTax(line, subscription, issue),
    total: line.amount,
    order_id: line.order_id,
    period: line.period,
    attempt: line.attempt,
    transaction_id: line.transaction_id,
    ...(line.billed === undefined ? {} : { billed: line.billed }),
    coupon_id: line.coupon_id,
  };
}

/**
 * The credit note of a succeeded refund of `charge`, drafted for `sequence`: against `invoice` (the charge's), its
 * buyer and tax rates; a charge without one, the subscription's as they stand.
 */
export function draftCreditNote(
  subscription: Subscription,
  refund: RefundRecord,
  charge: ChargeAttempt,
  issue: Issue,
  sequence: number,
  invoice?: Invoice,
): CreditNote {
  const refunded = charge.invoice_number ?? charge.order_id;
  // The refund gives back the same share of tax its invoice had (an added tax too: the refund holds its share).
  const tax =
    invoice === undefined
      ? includedTaxOf(refund.amount, refund.currency, subscription, issue)
      : invoice.tax.map((line) => includedTax(refund.amount, refund.currency, line, line.inclusive));
  const added = tax.filter((line) => !line.inclusive).reduce((sum, line) => sum + toCents(line.amount), 0);
  const net = fromCents(toCents(refund.amount) - added, refund.currency);
  return {
    kind: "credit_note",
    ...heading(subscription, issue, creditNotePrefix(issue), sequence),
    // It credits its invoice: the buyer that invoice named, whatever the customer's address has become since.
    ...(invoice === undefined ? {} : { buyer: invoice.buyer }),
    currency: refund.currency,
    lines: [
      {
        description: `Refund on ${refunded}: ${refund.reason}`,
        quantity: 1,
        unit_amount: net,
        amount: net,
      },
    ],
    subtotal: net,
    discount: fromCents(0, refund.currency),
    tax,
    total: refund.amount,
    refund_id: refund.refund_id,
    order_id: refund.order_id,
    period: refund.period,
    attempt: refund.attempt,
    invoice_number: charge.invoice_number,
    reason: refund.reason,
    refund_transaction_id: refund.refund_transaction_id,
  };
}

/** Whether a paid line is invoiced: every charge that moves money, but not a card's verification (given back whole). */
export const isInvoiced = (line: Pick<ChargeAttempt, "verification">): boolean => line.verification !== true;
