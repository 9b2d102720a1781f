import PDFDocument from "pdfkit";
import type { DocumentSheet } from "./document-sheet";

// An invoice or a credit note as a PDF (pdfkit): one A4 page per document as its page lays it out — heading, parties,
// lines, totals, references — in Noto Sans KR (its Latin and Hangul both, subset into the file), so either language
// prints as it reads on screen.

/** The typefaces a document is set in: a regular and a bold weight (OpenType bytes). */
export interface DocumentFonts {
  readonly regular: Uint8Array;
  readonly bold: Uint8Array;
}

const MARGIN = 50;
const PAGE_WIDTH = 595.28;
const WIDTH = PAGE_WIDTH - 2 * MARGIN;
const INK = "#1b1b1f";
const MUTED = "#4a4a55";
const LINE = "#d5d5dc";
/** The lines table's columns: description, quantity, unit price, amount (points). */
const COLUMNS = [255, 45, 95, 100] as const;

export function renderDocumentPdf(sheet: DocumentSheet, fonts: DocumentFonts): Promise<Uint8Array> {
  const pdf = new PDFDocument({
    size: "A4",
    margin: MARGIN,
    // No standard font (an empty name loads none): every glyph comes from the embedded typeface.
    font: "",
    info: { Title: `${sheet.title} ${sheet.number}`, Author: sheet.parties[0].lines[0] ?? "" },
    lang: sheet.lang,
    displayTitle: true,
  });
  const chunks: Buffer[] = [];
  pdf.on("data", (chunk: Buffer) => chunks.push(chunk));
  const done = new Promise<Uint8Array>((resolve, reject) => {
    pdf.on("end", () => resolve(Buffer.concat(chunks)));
    pdf.on("error", reject);
  });
  pdf.registerFont("regular", Buffer.from(fonts.regular));
  pdf.registerFont("bold", Buffer.from(fonts.bold));

  pdf.font("bold").fontSize(22).fillColor(INK).text(sheet.title, MARGIN, MARGIN);
  let y = MARGIN + 36;
  for (const fact of sheet.facts) {
    pdf.font("regular").fontSize(10).fillColor(MUTED).text(fact.label, MARGIN, y, { width: 90 });
    pdf.fillColor(INK).text(fact.value, MARGIN + 90, y, { width: 300 });
    y += 15;
  }

  y += 15;
  const partyWidth = WIDTH / 2 - 10;
  const partyTops = sheet.parties.map((party, index) => {
    const x = MARGIN + index * (partyWidth + 20);
    pdf.font("bold").fontSize(10).fillColor(MUTED).text(party.heading, x, y, { width: partyWidth });
    pdf.font("regular").fontSize(10).fillColor(INK);
    party.lines.forEach((line, lineIndex) => {
      pdf.font(lineIndex === 0 ? "bold" : "regular").text(line, x, undefined, { width: partyWidth });
    });
    return pdf.y;
  });
  y = Math.max(...partyTops) + 25;

  const cells = (values: readonly string[], font: "regular" | "bold", color: string) => {
    let x = MARGIN;
    let bottom = y;
    values.forEach((value, index) => {
      const width = COLUMNS[index] ?? 0;
      pdf.font(font).fontSize(10).fillColor(color);
      pdf.text(value, x, y, { width: width - 6, align: index === 0 ? "left" : "right" });
      bottom = Math.max(bottom, pdf.y);
      x += width;
    });
    return bottom;
  };
  const rule = (at: number) =>
    pdf
      .moveTo(MARGIN, at)
      .lineTo(MARGIN + WIDTH, at)
      .strokeColor(LINE)
      .stroke();
  const { columns } = sheet;
  y = cells([columns.description, columns.quantity, columns.unitPrice, columns.amount], "bold", MUTED) + 4;
  rule(y);
  y += 6;
  for (const line of sheet.lines) {
    const bottom = cells([line.description, line.quantity, line.unitPrice, line.amount], "regular", INK);
    y = bottom;
    if (line.period !== undefined) {
      pdf
        .font("regular")
        .fontSize(9)
        .fillColor(MUTED)
        .text(line.period, MARGIN, y, { width: COLUMNS[0] - 6 });
      y = pdf.y;
    }
    y += 4;
    rule(y);
    y += 6;
  }

  y += 6;
  const labelX = MARGIN + WIDTH - 300;
  sheet.totals.forEach((row, index) => {
    const last = index === sheet.totals.length - 1;
    pdf
      .font(last ? "bold" : "regular")
      .fontSize(last ? 12 : 10)
      .fillColor(INK);
    pdf.text(row.label, labelX, y, { width: 190 });
    pdf.text(row.value, labelX + 190, y, { width: 104, align: "right" });
    y = pdf.y + 4;
  });

  y += 20;
  for (const reference of sheet.references) {
    pdf
      .font("regular")
      .fontSize(9)
      .fillColor(MUTED)
      .text(`${reference.label}: ${reference.value}`, MARGIN, y);
    y = pdf.y + 2;
  }
  pdf.end();
  return done;
}
