import { describe, expect, it } from "vitest";
import { documentSheetOf } from "../../../functions/pages/documents/document-sheet";
import { creditNote, invoice } from "../../support/document-store-contract";

// What an invoice shows when the gateway billed the card in its own currency (DCC): the converted amount and the
// rate, among its references, in the reader's language; nothing of the kind otherwise.

describe("documentSheetOf", () => {
  const converted = invoice("INV-2030", 1, {
    transaction_id: "1A2B3C4D5EW0000000000001",
    billed: { currency: "KRW", amount: "26865", rate: "1350" },
  });

  it("names what the card was billed, and at what rate, before the payment reference", () => {
    expect(documentSheetOf(converted, "en").references).toEqual([
      { label: "Billed to the card", value: "₩26,865 (1 USD = 1350 KRW)" },
      { label: "Payment reference", value: "1A2B3C4D5EW0000000000001" },
    ]);
    expect(documentSheetOf(converted, "ko").references[0]).toEqual({
      label: "카드 청구 금액",
      value: expect.stringContaining("26,865"),
    });
  });

  it("shows no billed amount for a total billed as it is, nor on a credit note", () => {
    const labels = [invoice("INV-2030", 2), creditNote("CN-2030", 1)].flatMap((document) =>
      documentSheetOf(document, "en").references.map((row) => row.label),
    );
    expect(labels).toEqual([]);
  });

  it("labels a tax added on top without '(included)', and one within the prices with it", () => {
    const taxed = invoice("INV-2030", 3, {
      subtotal: "19.90",
      tax: [
        { name: "VAT", percent: "20", amount: "3.98", inclusive: false },
        { name: "Levy", percent: "1", amount: "0.24", inclusive: true },
      ],
      total: "23.88",
    });
    expect(documentSheetOf(taxed, "en").totals).toEqual([
      { label: "Subtotal", value: "$19.90" },
      { label: "VAT 20%", value: "$3.98" },
      { label: "Levy 1% (included)", value: "$0.24" },
      { label: "Total", value: "$23.88" },
    ]);
  });
});
