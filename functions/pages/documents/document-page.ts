import { html } from "../shared/html";
import { type PageResult, pageAnswer } from "../shared/page-layout";
import { type DocumentSheet, documentTextOf } from "./document-sheet";

// An invoice or a credit note as a page (README, Invoices and credit notes): what its PDF holds, readable on a phone
// and printable, with the PDF one link away.

export function documentPage(sheet: DocumentSheet, pdfUrl: string): PageResult {
  const text = documentTextOf(sheet.lang);
  const rows = (entries: readonly { label: string; value: string }[]) =>
    entries.map(({ label, value }) => html`<dt>${label}</dt><dd>${value}</dd>`);
  const main = html`<h1>${sheet.title} ${sheet.number}</h1>
<dl>${rows(sheet.facts)}</dl>
${sheet.parties.map(
  (party) => html`<section aria-label="${party.heading}"><h2>${party.heading}</h2>
<p>${party.lines.map((line, index) => (index === 0 ? html`<strong>${line}</strong>` : html`<br>${line}`))}</p></section>`,
)}
<section>
<table>
<thead><tr><th scope="col">${sheet.columns.description}</th><th scope="col">${sheet.columns.quantity}</th><th scope="col">${sheet.columns.unitPrice}</th><th scope="col">${sheet.columns.amount}</th></tr></thead>
<tbody>${sheet.lines.map(
    (line) =>
      html`<tr><td>${line.description}${line.period === undefined ? "" : html`<br><span class="muted">${line.period}</span>`}</td><td>${line.quantity}</td><td>${line.unitPrice}</td><td>${line.amount}</td></tr>`,
  )}</tbody>
</table>
<dl>${rows(sheet.totals)}</dl>
${sheet.references.length === 0 ? "" : html`<dl class="muted">${rows(sheet.references)}</dl>`}
</section>
<p><a class="button" href="${pdfUrl}">${text.downloadPdf}</a></p>`;
  return pageAnswer(200, { lang: sheet.lang, title: `${sheet.title} ${sheet.number}`, main });
}
