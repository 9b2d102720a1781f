import * as z from "zod";
import {
  addressLines,
  type BillingDocument,
  type CreditNote,
  type Invoice,
  taxOf,
} from "../core/base/documents";
import { externalIdSchema } from "../core/base/model";
import { orderIdFor } from "../core/base/order-id";
import { lazySchema, lazyShape } from "../shared/lazy-schema";
import { isoInstant } from "./merchant-api-schemas";
import { billedView, billedViewOf } from "./merchant-api-views";
import { pageQueryShape, pageView } from "./page-query";

// The invoices and credit notes routes (README, Invoices): what a listing takes and what a document looks like.

/** A bound of a listing: an instant, or a date (midnight UTC). */
const bound = lazySchema(() =>
  z
    .union([z.iso.date(), isoInstant])
    .transform((text) => new Date(text.length === 10 ? `${text}T00:00:00.000Z` : text)),
);

/** GET /v1/invoices and /v1/credit-notes: newest first, of one subscription, of one customer, or all. */
export const listDocumentsQuery = lazySchema(() =>
  z.strictObject({
    subscription_id: z
      .string()
      .regex(/^[A-Za-z0-9_]{1,24}$/, "must be a subscription id")
      .optional()
      .describe("Only this subscription's."),
    external_id: externalIdSchema.optional().describe("Only those of your customer's subscriptions."),
    from: bound.optional().describe("Issued at or after (a date means its midnight UTC)."),
    to: bound.optional().describe("Issued before."),
    ...pageQueryShape(),
  }),
);
export type ListDocumentsQuery = z.output<typeof listDocumentsQuery>;

const documentNumberParam = lazySchema(() =>
  z.string().regex(/^[A-Za-z0-9-]{1,24}-\d{6,9}$/, "must be a document number such as INV-2027-000123"),
);
export const invoiceNumberParams = lazySchema(() => z.strictObject({ number: documentNumberParam }));
export const creditNoteNumberParams = lazySchema(() => z.strictObject({ number: documentNumberParam }));

const amount = lazySchema(() => z.string());
const documentLineView = lazySchema(() =>
  z.strictObject({
    description: z.string(),
    quantity: z.number().int(),
    unit_amount: amount,
    amount: amount.describe("quantity × unit_amount, before any discount."),
    period_start: z.iso.date().nullable().describe("The first day the line pays for, in your time zone."),
    period_end: z.iso.date().nullable().describe("The last day it pays for."),
  }),
);

const partyView = lazySchema(() =>
  z.strictObject({
    name: z.string(),
    email: z.string().nullable(),
    address: z.array(z.string()).describe("The address, one printed line each."),
    tax_id: z.string().nullable(),
  }),
);

const documentShape = lazyShape(() => ({
  number: z.string().describe("From a sequence per prefix that never skips or repeats a number."),
  subscription_id: z.string(),
  external_id: z.string().nullable(),
  issue_date: z.iso.date().describe("The day the charge (or refund) was made, in your time zone."),
  issued_at: isoInstant.describe("When it was finalized."),
  seller: partyView,
  customer: partyView,
  currency: z.string(),
  lines: z.array(documentLineView),
  subtotal: amount.describe("The lines' sum."),
  discount: amount.describe('What a coupon took off ("0.00" when none).'),
  tax: amount.describe("The tax in the total (the sum of tax_lines)."),
  tax_lines: z.array(
    z.strictObject({
      name: z.string(),
      percent: z.string(),
      amount,
      inclusive: z
        .boolean()
        .describe(
          "true: included in the lines' prices (the total stays what was charged); false: added on top of them (an exclusive rate).",
        ),
    }),
  ),
  total: amount.describe(
    "What was charged (or given back): subtotal − discount, plus the taxes added on top (tax_lines with inclusive false).",
  ),
  hosted_url: z
    .url()
    .nullable()
    .describe(
      "The document as a page for your customer, under a link signed for it that holds about six months (a fresh one each read).",
    ),
  pdf_url: z
    .url()
    .nullable()
    .describe("Its PDF: the link leads (303) to a presigned download that holds five minutes."),
}));

export const invoiceView = lazySchema(() =>
  z.strictObject({
    ...documentShape(),
    charge_id: z.string().describe("The paid charge it was finalized from."),
    order_id: z.string(),
    transaction_id: z.string().nullable().describe("The gateway's transaction (null for a charge of zero)."),
    billed: billedView
      .nullable()
      .describe(
        "What the card was billed in its own currency (DCC); null when it was billed the total as it is.",
      ),
  }),
);
export const invoiceListView = lazySchema(() => pageView(invoiceView));

export const creditNoteView = lazySchema(() =>
  z.strictObject({
    ...documentShape(),
    refund_id: z.string(),
    charge_id: z.string().describe("The charge the refund gave money back on."),
    invoice_number: z.string().nullable().describe("That charge's invoice."),
    reason: z.string(),
  }),
);
export const creditNoteListView = lazySchema(() => pageView(creditNoteView));

/** Where a document is read by a person: its page and its PDF, under links signed for it (null: none offered). */
export type DocumentUrls = (document: BillingDocument) => {
  readonly hosted_url: string | null;
  readonly pdf_url: string | null;
};

function sharedView(document: BillingDocument, urls: DocumentUrls) {
  const { seller, buyer } = document;
  return {
    number: document.number,
    subscription_id: document.subscription_id,
    external_id: buyer.external_id ?? null,
    issue_date: document.issue_date,
    issued_at: document.issued_at,
    seller: {
      name: seller.name,
      email: seller.email ?? null,
      address: seller.address ?? [],
      tax_id: seller.tax_id ?? null,
    },
    customer: {
      name: buyer.name,
      email: buyer.email,
      address: addressLines(buyer.address),
      tax_id: buyer.tax_id ?? null,
    },
    currency: document.currency,
    lines: document.lines.map((line) => ({
      ...line,
      period_start: line.period_start ?? null,
      period_end: line.period_end ?? null,
    })),
    subtotal: document.subtotal,
    discount: document.discount,
    tax: taxOf(document),
    tax_lines: document.tax,
    total: document.total,
    ...urls(document),
  };
}

export const invoiceViewOf = (invoice: Invoice, urls: DocumentUrls): z.output<typeof invoiceView> => ({
  ...sharedView(invoice, urls),
  charge_id: orderIdFor(invoice),
  order_id: invoice.order_id,
  transaction_id: invoice.transaction_id ?? null,
  billed: invoice.billed === undefined ? null : billedViewOf(invoice.billed),
});

export const creditNoteViewOf = (note: CreditNote, urls: DocumentUrls): z.output<typeof creditNoteView> => ({
  ...sharedView(note, urls),
  refund_id: note.refund_id,
  charge_id: orderIdFor(note),
  invoice_number: note.invoice_number ?? null,
  reason: note.reason,
});
