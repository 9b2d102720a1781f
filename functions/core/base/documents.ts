import * as z from "zod";
import { lazySchema, lazyShape } from "../../shared/lazy-schema";
import { type AddedTaxRate, type BillingAddress, billedSchema, billingAddressSchema } from "./model";
import { fromCents, minorUnitCents, toCents } from "./money";

// Invoices and credit notes (README, Invoices): the documents a finance team files, made from our own ledger (the
// gateway has no invoice API). Each is numbered from a gap-free sequence per prefix and never changes once finalized.

const isoInstant = lazySchema(() => z.iso.datetime({ offset: true }));
const isoDate = lazySchema(() => z.iso.date());
const amount = lazySchema(() => z.string().regex(/^\d{1,8}(?:\.\d{1,2})?$/));

/** The merchant as its invoices name it (merchant configuration, copied onto each document when it is issued). */
export const sellerSchema = lazySchema(() =>
  z.object({
    name: z.string().min(1).max(200),
    /** Its address, one printed line per entry. */
    address: z.array(z.string().min(1).max(200)).max(6).optional(),
    tax_id: z.string().min(1).max(50).optional(),
    email: z.email().max(254).optional(),
  }),
);
export type Seller = z.infer<typeof sellerSchema>;

/** A tax the merchant charges customers of a country ("*": any other country, or no address). */
export const taxRateSchema = lazySchema(() =>
  z.object({
    country: z.union([z.string().regex(/^[A-Z]{2}$/), z.literal("*")]),
    name: z.string().min(1).max(40),
    /** Percent with up to 2 decimals ("10", "7.25"). */
    percent: z.string().regex(/^(?:\d{1,2}(?:\.\d{1,2})?|100)$/, "must be a percentage from 0 to 100"),
    /**
     * true: prices include it, and the invoice shows the part of the total that is tax. false: it is added on top of
     * every charge, at the rate the subscription took at sign-up (exclusiveRateFor).
     */
    inclusive: z.boolean(),
  }),
);
export type TaxRate = z.infer<typeof taxRateSchema>;

/** How documents are numbered, dated and headed. */
export const invoicingPolicySchema = lazySchema(() =>
  z.object({
    /** The invoices' prefix; {YYYY} becomes the issue year, so numbering restarts each year. */
    invoice_prefix: z.string().regex(/^[A-Za-z0-9{}-]{1,24}$/),
    credit_note_prefix: z.string().regex(/^[A-Za-z0-9{}-]{1,24}$/),
    /** The merchant's time zone (IANA): a document's issue date and year are its local date there. */
    time_zone: z.string().refine(isTimeZone, "must be an IANA time zone (e.g. Asia/Seoul)"),
    seller: sellerSchema,
    tax_rates: z.array(taxRateSchema).max(300),
  }),
);
export type InvoicingPolicy = z.infer<typeof invoicingPolicySchema>;

function isTimeZone(zone: string): boolean {
  try {
    new Intl.DateTimeFormat("en", { timeZone: zone });
    return true;
  } catch {
    return false;
  }
}

export const DEFAULT_INVOICING_POLICY: InvoicingPolicy = {
  invoice_prefix: "INV-{YYYY}",
  credit_note_prefix: "CN-{YYYY}",
  time_zone: "UTC",
  seller: { name: "Merchant" },
  tax_rates: [],
};

export const documentKind = lazySchema(() => z.enum(["invoice", "credit_note"]));
export type DocumentKind = z.infer<typeof documentKind>;

/** A formatter per time zone: making one costs ~0.1 ms (ICU's zone data), formatting with it ~2 µs. */
const dateFormats = new Map<string, Intl.DateTimeFormat>();

/** The calendar date of `instant` in `timeZone`, YYYY-MM-DD. */
export function localDate(instant: Date, timeZone: string): string {
  let format = dateFormats.get(timeZone);
  if (format === undefined) {
    format = new Intl.DateTimeFormat("en-CA", {
      timeZone,
      year: "numeric",
      month: "2-digit",
      day: "2-digit",
    });
    dateFormats.set(timeZone, format);
  }
  return format.format(instant);
}

/** The prefix a document issued on `issueDate` (YYYY-MM-DD) is numbered under. */
export const prefixOn = (template: string, issueDate: string): string =>
  template.replaceAll("{YYYY}", issueDate.slice(0, 4));

/** Sequence numbers are printed with at least this many digits (INV-2027-000123). */
const SEQUENCE_DIGITS = 6;

export const documentNumber = (prefix: string, sequence: number): string =>
  `${prefix}-${String(sequence).padStart(SEQUENCE_DIGITS, "0")}`;

/** A document number's prefix and sequence; undefined for a string that is not one. */
export function parseDocumentNumber(
  number: string,
): { readonly prefix: string; readonly sequence: number } | undefined {
  const match = /^([A-Za-z0-9-]{1,24})-(\d{6,9})$/.exec(number);
  if (!match?.[1] || !match[2]) return undefined;
  const sequence = Number(match[2]);
  return sequence >= 1 ? { prefix: match[1], sequence } : undefined;
}

export const documentLineSchema = lazySchema(() =>
  z.object({
    description: z.string(),
    quantity: z.number().int().min(1),
    unit_amount: amount,
    /** quantity × unit_amount, before any discount. */
    amount,
    /** The service period the line pays for, in the merchant's dates (end inclusive). */
    period_start: isoDate.optional(),
    period_end: isoDate.optional(),
  }),
);
export type DocumentLine = z.infer<typeof documentLineSchema>;

export const taxLineSchema = lazySchema(() =>
  z.object({
    name: z.string(),
    percent: z.string(),
    /** The part of the total that is this tax. */
    amount,
    /** true: within the lines' amounts; false: added on top of them. */
    inclusive: z.boolean(),
  }),
);
export type TaxLine = z.infer<typeof taxLineSchema>;

const buyerSchema = lazySchema(() =>
  z.object({
    name: z.string(),
    email: z.string(),
    address: billingAddressSchema.optional(),
    tax_id: z.string().optional(),
    external_id: z.string().optional(),
  }),
);

/**
 * finalized: issued to its holder. void: its holder took another number (a close that lost a race); the next
 * document numbered takes the slot over, so a void document is only ever the last of its sequence and never listed.
 */
export const documentStatus = lazySchema(() => z.enum(["finalized", "void"]));

const documentShape = lazyShape(() => ({
  number: z.string(),
  prefix: z.string(),
  sequence: z.number().int().min(1),
  status: documentStatus,
  subscription_id: z.string(),
  issued_at: isoInstant,
  issue_date: isoDate,
  seller: sellerSchema,
  buyer: buyerSchema,
  currency: z.string(),
  lines: z.array(documentLineSchema).min(1),
  /** The lines' sum, before the discount. */
  subtotal: amount,
  discount: amount,
  tax: z.array(taxLineSchema),
  /** What was charged (or given back): subtotal − discount, with the taxes added on top (inclusive: false). */
  total: amount,
}));

export const invoiceSchema = lazySchema(() =>
  z.object({
    kind: z.literal("invoice"),
    ...documentShape(),
    /** The paid ledger line it was finalized from. */
    order_id: z.string(),
    period: z.number().int().min(0),
    attempt: z.number().int().min(0),
    transaction_id: z.string().optional(),
    /** What the card was billed in its own currency, when the gateway converted the total (DCC). */
    billed: billedSchema.optional(),
    coupon_id: z.string().optional(),
  }),
);
export type Invoice = z.infer<typeof invoiceSchema>;

export const creditNoteSchema = lazySchema(() =>
  z.object({
    kind: z.literal("credit_note"),
    ...documentShape(),
    /** The succeeded refund it records, and the charge (and its invoice) it gave money back on. */
    refund_id: z.string(),
    order_id: z.string(),
    period: z.number().int().min(0),
    attempt: z.number().int().min(0),
    invoice_number: z.string().optional(),
    reason: z.string(),
    refund_transaction_id: z.string().optional(),
  }),
);
export type CreditNote = z.infer<typeof creditNoteSchema>;

export const documentSchema = lazySchema(() =>
  z.discriminatedUnion("kind", [invoiceSchema, creditNoteSchema]),
);
export type BillingDocument = Invoice | CreditNote;

/** The order_id (invoice) or refund_id (credit note) a document was numbered for. */
export const holderOf = (document: BillingDocument): string =>
  document.kind === "invoice" ? document.order_id : document.refund_id;

/** The tax rate of a buyer's country, else the merchant's rate for any other country; none: no tax line. */
export function taxRateFor(rates: readonly TaxRate[], country: string | undefined): TaxRate | undefined {
  return rates.find((rate) => rate.country === country) ?? rates.find((rate) => rate.country === "*");
}

/**
 * The rate a new subscription adds on top of its charges: the buyer's country's (else "*") when it is exclusive;
 * undefined when that rate is included in prices, or there is none.
 */
export function exclusiveRateFor(
  rates: readonly TaxRate[],
  country: string | undefined,
): AddedTaxRate | undefined {
  const rate = taxRateFor(rates, country);
  return rate === undefined || rate.inclusive ? undefined : { name: rate.name, percent: rate.percent };
}

const percentBasis = (percent: string) => BigInt(Math.round(Number(percent) * 100));

/**
 * The tax included in `total` at `rate`: the total less the total without the tax, that net rounded half up to the
 * currency's minor unit (so tax and net always add up to what was charged). `inclusive`: how the document shows it —
 * false for a rate that was added on top (a proration's or a refund's share of a charge that had one).
 */
export function includedTax(
  total: string,
  currency: string,
  rate: Pick<TaxRate, "name" | "percent">,
  inclusive = true,
): TaxLine {
  const unit = minorUnitCents(currency);
  const units = BigInt(toCents(total) / unit);
  const basis = percentBasis(rate.percent);
  const netUnits = (units * 20_000n + 10_000n + basis) / (2n * (10_000n + basis));
  const tax = Number(units - netUnits) * unit;
  return { name: rate.name, percent: rate.percent, amount: fromCents(tax, currency), inclusive };
}

/** The tax `rate` adds on top of a net of `cents`, rounded half up to the currency's minor unit, in cents. */
export function addedTaxCents(cents: number, currency: string, rate: Pick<TaxRate, "percent">): number {
  const unit = BigInt(minorUnitCents(currency));
  const tax = (BigInt(cents) * percentBasis(rate.percent) + 5_000n * unit) / (10_000n * unit);
  return Number(tax * unit);
}

/** A buyer's address as printed, one line per entry. */
export const addressLines = (address: BillingAddress | undefined): string[] =>
  address === undefined
    ? []
    : [
        address.line1,
        ...(address.line2 === undefined ? [] : [address.line2]),
        [address.postal_code, address.city, address.region].filter((part) => part !== undefined).join(" "),
        address.country,
      ];

/** The tax a document's total includes: the sum of its tax lines. */
export const taxOf = (document: BillingDocument): string =>
  fromCents(
    document.tax.reduce((sum, line) => sum + toCents(line.amount), 0),
    document.currency,
  );
