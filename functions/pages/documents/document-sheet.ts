import { addressLines, type BillingDocument } from "../../core/base/documents";
import type { Billed } from "../../core/base/model";
import { toCents } from "../../core/base/money";
import { dayText, moneyText, type PageLang } from "../shared/page-text";

// What an invoice or a credit note shows, in the reader's language, laid out once for both its page and its PDF:
// the heading, the seller and the buyer, the lines, the totals and what it refers to. Every figure is the stored
// document's; nothing is computed again here but the words around it.

const DOCUMENT_TEXT = {
  en: {
    invoice: "Invoice",
    credit_note: "Credit note",
    number: "Number",
    issued: "Issue date",
    seller: "From",
    buyer: "Billed to",
    taxId: "Tax ID",
    description: "Description",
    quantity: "Qty",
    unitPrice: "Unit price",
    amount: "Amount",
    subtotal: "Subtotal",
    discount: "Discount",
    taxIncluded: (name: string, percent: string) => `${name} ${percent}% (included)`,
    taxAdded: (name: string, percent: string) => `${name} ${percent}%`,
    total: "Total",
    totalCredited: "Total credited",
    creditsInvoice: "Credits invoice",
    transaction: "Payment reference",
    billed: "Billed to the card",
    downloadPdf: "Download PDF",
  },
  ko: {
    invoice: "인보이스",
    credit_note: "대변표",
    number: "번호",
    issued: "발행일",
    seller: "공급자",
    buyer: "공급받는 자",
    taxId: "사업자등록번호",
    description: "품목",
    quantity: "수량",
    unitPrice: "단가",
    amount: "금액",
    subtotal: "소계",
    discount: "할인",
    taxIncluded: (name: string, percent: string) => `${name} ${percent}% (포함)`,
    taxAdded: (name: string, percent: string) => `${name} ${percent}%`,
    total: "합계",
    totalCredited: "환불 합계",
    creditsInvoice: "원 인보이스",
    transaction: "결제 참조 번호",
    billed: "카드 청구 금액",
    downloadPdf: "PDF 내려받기",
  },
} as const satisfies Record<PageLang, unknown>;

export const documentTextOf = (lang: PageLang) => DOCUMENT_TEXT[lang];

export interface SheetParty {
  readonly heading: string;
  /** Name first, then address lines, tax id and e-mail. */
  readonly lines: readonly string[];
}

export interface SheetLine {
  readonly description: string;
  /** The period it pays for, when it has one. */
  readonly period?: string;
  readonly quantity: string;
  readonly unitPrice: string;
  readonly amount: string;
}

export interface SheetRow {
  readonly label: string;
  readonly value: string;
}

export interface DocumentSheet {
  readonly lang: PageLang;
  readonly title: string;
  readonly number: string;
  /** Number and issue date. */
  readonly facts: readonly SheetRow[];
  readonly parties: readonly [SheetParty, SheetParty];
  readonly lines: readonly SheetLine[];
  readonly columns: {
    readonly description: string;
    readonly quantity: string;
    readonly unitPrice: string;
    readonly amount: string;
  };
  /** Subtotal, discount and tax included; the total last. */
  readonly totals: readonly SheetRow[];
  /** The invoice a credit note credits, what the card was billed in its own currency, the gateway's reference. */
  readonly references: readonly SheetRow[];
}

/** A date (YYYY-MM-DD) as the language writes it. */
const dateText = (date: string, lang: PageLang) => dayText(`${date}T00:00:00.000Z`, lang);

/** A converted total as the card was billed: "₩64,476 (1 USD = 1350 KRW)". */
const billedText = (currency: string, billed: Billed, lang: PageLang) =>
  `${moneyText(billed.amount, billed.currency, lang)}${billed.rate === undefined ? "" : ` (1 ${currency} = ${billed.rate} ${billed.currency})`}`;

export function documentSheetOf(document: BillingDocument, lang: PageLang): DocumentSheet {
  const text = DOCUMENT_TEXT[lang];
  const money = (amount: string) => moneyText(amount, document.currency, lang);
  const { seller, buyer } = document;
  const taxLine = (taxId: string | undefined) => (taxId === undefined ? [] : [`${text.taxId} ${taxId}`]);
  const totals: SheetRow[] = [{ label: text.subtotal, value: money(document.subtotal) }];
  if (toCents(document.discount) > 0)
    totals.push({ label: text.discount, value: `−${money(document.discount)}` });
  for (const tax of document.tax)
    totals.push({
      label: (tax.inclusive ? text.taxIncluded : text.taxAdded)(tax.name, tax.percent),
      value: money(tax.amount),
    });
  totals.push({
    label: document.kind === "invoice" ? text.total : text.totalCredited,
    value: money(document.total),
  });
  const transaction = document.kind === "invoice" ? document.transaction_id : document.refund_transaction_id;
  return {
    lang,
    title: text[document.kind],
    number: document.number,
    facts: [
      { label: text.number, value: document.number },
      { label: text.issued, value: dateText(document.issue_date, lang) },
    ],
    parties: [
      {
        heading: text.seller,
        lines: [
          seller.name,
          ...(seller.address ?? []),
          ...taxLine(seller.tax_id),
          ...(seller.email ? [seller.email] : []),
        ],
      },
      {
        heading: text.buyer,
        lines: [buyer.name, ...addressLines(buyer.address), ...taxLine(buyer.tax_id), buyer.email],
      },
    ],
    columns: {
      description: text.description,
      quantity: text.quantity,
      unitPrice: text.unitPrice,
      amount: text.amount,
    },
    lines: document.lines.map((line) => ({
      description: line.description,
      ...(line.period_start !== undefined && line.period_end !== undefined
        ? { period: `${dateText(line.period_start, lang)} – ${dateText(line.period_end, lang)}` }
        : {}),
      quantity: String(line.quantity),
      unitPrice: money(line.unit_amount),
      amount: money(line.amount),
    })),
    totals,
    references: [
      ...(document.kind === "credit_note" && document.invoice_number !== undefined
        ? [{ label: text.creditsInvoice, value: document.invoice_number }]
        : []),
      ...(document.kind === "invoice" && document.billed !== undefined
        ? [{ label: text.billed, value: billedText(document.currency, document.billed, lang) }]
        : []),
      ...(transaction === undefined ? [] : [{ label: text.transaction, value: transaction }]),
    ],
  };
}
