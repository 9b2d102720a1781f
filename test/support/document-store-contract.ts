import { describe, expect, it } from "vitest";
import type { CreditNote, Invoice } from "../../functions/core/base/documents";
import { documentNumber } from "../../functions/core/base/documents";
import { InvalidCursorError } from "../../functions/core/ports/billing-repository";
import type { DocumentStore } from "../../functions/core/ports/document-store";

// What every DocumentStore must do (the DynamoDB repository's and the in-memory one's): a prefix's documents are its
// sequence, the last read back as written; a number is taken once; a slot is taken over only from the holder named;
// void documents are never found or listed; listings page newest first.

export function invoice(prefix: string, sequence: number, overrides: Partial<Invoice> = {}): Invoice {
  return {
    kind: "invoice",
    number: documentNumber(prefix, sequence),
    prefix,
    sequence,
    status: "finalized",
    subscription_id: "sub-doc",
    issued_at: new Date(Date.UTC(2030, 0, 1, 0, sequence)).toISOString(),
    issue_date: "2030-01-01",
    seller: { name: "Example Ltd" },
    buyer: { name: "Ada", email: "ada@example.com" },
    currency: "USD",
    lines: [{ description: "Pro", quantity: 1, unit_amount: "19.90", amount: "19.90" }],
    subtotal: "19.90",
    discount: "0.00",
    tax: [],
    total: "19.90",
    order_id: `sub-doc-${sequence}-0`,
    period: sequence,
    attempt: 0,
    ...overrides,
  };
}

export function creditNote(
  prefix: string,
  sequence: number,
  overrides: Partial<CreditNote> = {},
): CreditNote {
  const {
    kind: _kind,
    transaction_id: _transaction,
    coupon_id: _coupon,
    ...shared
  } = invoice(prefix, sequence);
  return {
    ...shared,
    kind: "credit_note",
    refund_id: `rf-${sequence}`,
    reason: "requested_by_customer",
    ...overrides,
  };
}

const numbers = (page: { readonly documents: readonly { readonly number: string }[] }) =>
  page.documents.map((document) => document.number);

export function describeDocumentStoreContract(fresh: () => Promise<DocumentStore>): void {
  describe("documents", () => {
    it("takes a number once and reads the last of a prefix back, each kind and prefix its own sequence", async () => {
      const store = await fresh();
      expect(await store.lastDocument("invoice", "INV-2030")).toBeUndefined();
      expect(await store.createDocument(invoice("INV-2030", 1))).toBe(true);
      expect(await store.createDocument(invoice("INV-2030", 1, { order_id: "other" }))).toBe(false);
      expect(await store.createDocument(invoice("INV-2030", 2))).toBe(true);
      expect(await store.createDocument(invoice("INV-2031", 1))).toBe(true);
      expect(await store.createDocument(creditNote("INV-2030", 1))).toBe(true);
      expect(await store.lastDocument("invoice", "INV-2030")).toEqual(invoice("INV-2030", 2));
      expect(await store.lastDocument("credit_note", "INV-2030")).toEqual(creditNote("INV-2030", 1));
      expect(await store.getInvoice("INV-2030-000001")).toEqual(invoice("INV-2030", 1));
      expect(await store.getInvoice("INV-2030-000009")).toBeUndefined();
      expect(await store.getInvoice("not a number")).toBeUndefined();
      expect(await store.getCreditNote("INV-2031-000001")).toBeUndefined();
    });

    it("voids a document only for its holder, hides it, and lets only that holder's slot be taken over", async () => {
      const store = await fresh();
      await store.createDocument(invoice("INV-2030", 1));
      await store.voidDocument("invoice", "INV-2030-000001", "someone-else");
      expect(await store.getInvoice("INV-2030-000001")).toBeDefined();
      await store.voidDocument("invoice", "INV-2030-000001", "sub-doc-1-0");
      expect(await store.getInvoice("INV-2030-000001")).toBeUndefined();
      expect(await store.lastDocument("invoice", "INV-2030")).toMatchObject({ status: "void" });
      expect((await store.listInvoices({}, { limit: 10 })).documents).toEqual([]);

      const taken = invoice("INV-2030", 1, { order_id: "sub-doc-7-0", period: 7 });
      expect(await store.replaceDocument(taken, "someone-else")).toBe(false);
      expect(await store.replaceDocument(taken, "sub-doc-1-0")).toBe(true);
      expect(await store.replaceDocument(taken, "sub-doc-1-0")).toBe(false);
      expect(await store.getInvoice("INV-2030-000001")).toEqual(taken);
      expect(numbers(await store.listInvoices({ subscription_ids: ["sub-doc"] }, { limit: 10 }))).toEqual([
        "INV-2030-000001",
      ]);
    });

    it("lists a subscription's documents newest first, a page at a time, within [from, to)", async () => {
      const store = await fresh();
      for (let sequence = 1; sequence <= 5; sequence += 1)
        await store.createDocument(
          invoice("INV-2030", sequence, { subscription_id: sequence % 2 ? "a" : "b" }),
        );
      await store.createDocument(creditNote("CN-2030", 1, { subscription_id: "a" }));
      const first = await store.listInvoices({ subscription_ids: ["a", "b"] }, { limit: 2 });
      expect(numbers(first)).toEqual(["INV-2030-000005", "INV-2030-000004"]);
      const second = await store.listInvoices(
        { subscription_ids: ["a", "b"] },
        { limit: 2, cursor: first.cursor },
      );
      expect(numbers(second)).toEqual(["INV-2030-000003", "INV-2030-000002"]);
      const last = await store.listInvoices(
        { subscription_ids: ["a", "b"] },
        { limit: 2, cursor: second.cursor },
      );
      expect(numbers(last)).toEqual(["INV-2030-000001"]);
      expect(last.cursor).toBeUndefined();
      expect(numbers(await store.listInvoices({ subscription_ids: ["a"] }, { limit: 10 }))).toEqual([
        "INV-2030-000005",
        "INV-2030-000003",
        "INV-2030-000001",
      ]);
      const window = { from: new Date(Date.UTC(2030, 0, 1, 0, 2)), to: new Date(Date.UTC(2030, 0, 1, 0, 4)) };
      expect(
        numbers(await store.listInvoices({ subscription_ids: ["a", "b"], ...window }, { limit: 10 })),
      ).toEqual(["INV-2030-000003", "INV-2030-000002"]);
      expect(numbers(await store.listCreditNotes({ subscription_ids: ["a"] }, { limit: 10 }))).toEqual([
        "CN-2030-000001",
      ]);
    });

    it("lists every document of a kind, prefix by prefix, newest first, within [from, to)", async () => {
      const store = await fresh();
      for (let sequence = 1; sequence <= 3; sequence += 1) {
        await store.createDocument(invoice("INV-2030", sequence));
        await store.createDocument(invoice("INV-2031", sequence, { order_id: `next-${sequence}` }));
      }
      const first = await store.listInvoices({}, { limit: 4 });
      expect(numbers(first)).toEqual([
        "INV-2031-000003",
        "INV-2031-000002",
        "INV-2031-000001",
        "INV-2030-000003",
      ]);
      const rest = await store.listInvoices({}, { limit: 4, cursor: first.cursor });
      expect(numbers(rest)).toEqual(["INV-2030-000002", "INV-2030-000001"]);
      expect(rest.cursor).toBeUndefined();
      const since = { from: new Date(Date.UTC(2030, 0, 1, 0, 3)) };
      expect(numbers(await store.listInvoices(since, { limit: 10 }))).toEqual([
        "INV-2031-000003",
        "INV-2030-000003",
      ]);
      expect((await store.listCreditNotes({}, { limit: 10 })).documents).toEqual([]);
    });

    it("refuses a cursor it did not issue", async () => {
      const store = await fresh();
      await expect(store.listInvoices({}, { limit: 10, cursor: "bm90LWEtY3Vyc29y!" })).rejects.toBeInstanceOf(
        InvalidCursorError,
      );
    });
  });
}
