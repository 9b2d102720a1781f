import { mkdirSync, writeFileSync } from "node:fs";
import { ListObjectsV2Command } from "@aws-sdk/client-s3";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { s3ClientOf } from "../../../functions/adapters/aws/s3-document-files";
import { requestPage } from "../../support/pages";
import { readPdf } from "../../support/pdf-reading";
import { stackWithWebhooks } from "../../support/webhook-stack";

// Invoices and credit notes as the customer reads them (README, Invoices and credit notes), through read-documents and
// serve-document as deployed, on dynalite, s3rver and the sandbox: the API hands out signed links; the page shows the
// document in the reader's language; its PDF is rendered once into the bucket and handed out by a presigned link, and
// read back as a person would (its text, and its first page rendered to PNG).

/** Where the rendered first pages are kept for a look (git ignores test-output/). */
const DOCUMENT_SCREENSHOT_DIR = new URL("../../../test-output/documents/", import.meta.url);
const START = new Date("2027-03-01T00:30:00.000Z");
const { stack, container, call } = stackWithWebhooks({
  start: START,
  policy: {
    invoicing: {
      invoice_prefix: "INV-{YYYY}",
      credit_note_prefix: "CN-{YYYY}",
      time_zone: "Asia/Seoul",
      seller: {
        name: "예시 소프트웨어 주식회사",
        address: ["서울특별시 중구 세종대로 110"],
        tax_id: "123-45-67890",
      },
      tax_rates: [{ country: "KR", name: "부가세", percent: "10", inclusive: true }],
    },
  },
});

const links = z.looseObject({ number: z.string(), hosted_url: z.url(), pdf_url: z.url() });
const charges = z.object({
  charges: z.array(
    z.looseObject({
      charge_id: z.string(),
      invoice_number: z.string().optional(),
      invoice_url: z.url().optional(),
    }),
  ),
});

async function paidInvoice(name: string) {
  const answer = await call("POST", "/v1/subscriptions", {
    body: {
      customer: {
        name,
        email: "minji@example.com",
        address: { line1: "1 Sejong-daero", city: "Seoul", country: "KR" },
      },
      plan: { amount: "59700", currency: "KRW", interval_months: 1 },
      card: { number: "4111111111111111", expiry: "203012", cvc: "123" },
    },
  });
  expect(answer.status, answer.text).toBe(201);
  const { subscription_id } = z.looseObject({ subscription_id: z.string() }).parse(answer.json);
  const [charge] = charges.parse(
    (await call("GET", `/v1/subscriptions/${subscription_id}/charges`)).json,
  ).charges;
  const invoice = links.parse((await call("GET", `/v1/invoices/${charge?.invoice_number}`)).json);
  return {
    subscription_id,
    charge_id: charge?.charge_id ?? "",
    invoice_url: charge?.invoice_url ?? "",
    invoice,
  };
}

const open = (url: string) => requestPage(container, "GET", url);

/** The PDF behind a document's pdf_url: a 303 to a presigned link into the bucket, and the file there. */
async function pdfAt(url: string) {
  const reply = await open(url);
  expect(reply.status).toBe(303);
  const presigned = reply.headers.location ?? "";
  expect(presigned.startsWith(`${stack().s3.endpoint}/${stack().s3.bucket}/`), presigned).toBe(true);
  expect(new URL(presigned).searchParams.get("X-Amz-Expires")).toBe("300");
  const file = await fetch(presigned);
  expect(file.status).toBe(200);
  expect(file.headers.get("content-type")).toBe("application/pdf");
  return new Uint8Array(await file.arrayBuffer());
}

async function storedFiles(): Promise<string[]> {
  const listed = await s3ClientOf(stack().runtime).send(
    new ListObjectsV2Command({ Bucket: stack().s3.bucket }),
  );
  return (listed.Contents ?? []).map((object) => object.Key ?? "").sort();
}

describe("an invoice's page and PDF", () => {
  it("the API's links open the invoice in the reader's language, and its PDF holds the number, the line and the total", async () => {
    const { invoice, invoice_url } = await paidInvoice("김민지");
    // The charge listing links the same page.
    expect((await open(invoice_url)).text).toContain(`Invoice ${invoice.number}`);
    const page = await open(invoice.hosted_url);
    expect(page.status).toBe(200);
    expect(page.headers["content-type"]).toContain("text/html");
    expect(page.text).toContain(`Invoice ${invoice.number}`);
    expect(page.text).toContain("₩59,700");
    // 59,700 includes 10 %: 59,700 − 54,273 (59,700 / 1.1, rounded half up to the won).
    expect(page.text).toContain("₩5,427");
    expect(page.text).toContain("김민지");

    const korean = await open(`${invoice.hosted_url}?lang=ko`);
    expect(korean.text).toContain(`인보이스 ${invoice.number}`);
    expect(korean.text).toContain("부가세 10% (포함)");

    const bytes = await pdfAt(`${invoice.pdf_url}?lang=ko`);
    expect(Buffer.from(bytes.subarray(0, 5)).toString()).toBe("%PDF-");
    const read = await readPdf(bytes);
    expect(read.pages).toBe(1);
    const text = read.text.join(" ");
    for (const expected of [
      "인보이스",
      invoice.number,
      "예시 소프트웨어 주식회사",
      "김민지",
      "Subscription",
      "₩59,700",
      "₩5,427",
      "합계",
    ])
      expect(text, expected).toContain(expected);
    // Rendered as a person sees it: a page with print on it (about 1 % of an A4 page of this length is ink), kept
    // beside the test run for a look.
    expect(read.inkShare).toBeGreaterThan(0.003);
    expect(read.inkShare).toBeLessThan(0.1);
    mkdirSync(DOCUMENT_SCREENSHOT_DIR, { recursive: true });
    writeFileSync(new URL(`${invoice.number}.ko.png`, DOCUMENT_SCREENSHOT_DIR), read.png);
  });

  it("renders a PDF once per language and hands the stored file out again", async () => {
    const { invoice } = await paidInvoice("Grace Hopper");
    const before = await storedFiles();
    const first = await pdfAt(invoice.pdf_url);
    const again = await pdfAt(invoice.pdf_url);
    expect(Buffer.from(again).equals(Buffer.from(first))).toBe(true);
    await pdfAt(`${invoice.pdf_url}?lang=ko`);
    const added = (await storedFiles()).filter((key) => !before.includes(key));
    expect(added).toEqual([`invoice/${invoice.number}/en.pdf`, `invoice/${invoice.number}/ko.pdf`]);
    const text = (await readPdf(first)).text.join(" ");
    expect(text).toContain("Invoice");
    expect(text).toContain("Grace Hopper");
    expect(text).toContain("Total");
  });

  it("a refund's credit note names the invoice it credits, on its page and in its PDF", async () => {
    const { charge_id, invoice } = await paidInvoice("Ada Lovelace");
    const refund = await call("POST", `/v1/charges/${charge_id}/refunds`, {
      body: { amount: "10000", reason: "customer request" },
    });
    expect(refund.status, refund.text).toBe(201);
    const { credit_note_number } = z.looseObject({ credit_note_number: z.string() }).parse(refund.json);
    const note = links.parse((await call("GET", `/v1/credit-notes/${credit_note_number}`)).json);
    const page = await open(note.hosted_url);
    expect(page.status).toBe(200);
    expect(page.text).toContain(`Credit note ${credit_note_number}`);
    expect(page.text).toContain(invoice.number);
    expect(page.text).toContain("₩10,000");
    const text = (await readPdf(await pdfAt(note.pdf_url))).text.join(" ");
    expect(text).toContain("Credit note");
    expect(text).toContain(invoice.number);
    expect(text).toContain("Total credited");
  });

  it("a tampered, foreign or expired link opens nothing", async () => {
    const { subscription_id, invoice } = await paidInvoice("Linus");
    const token = new URL(invoice.hosted_url).pathname.split("/")[2] ?? "";
    const [payload, signature] = token.split(".");
    const tampered = invoice.hosted_url.replace(token, `${payload}x.${signature}`);
    expect((await open(tampered)).status).toBe(403);
    expect((await open(`${tampered}/pdf`)).status).toBe(403);
    const portal = z
      .looseObject({ url: z.string() })
      .parse((await call("POST", "/v1/portal-sessions", { body: { subscription_id } })).json);
    const portalToken = new URL(portal.url).pathname.split("/")[2] ?? "";
    expect((await open(invoice.hosted_url.replace(token, portalToken))).status).toBe(403);
    await stack().clock.advance("P184D");
    const expired = await open(invoice.hosted_url);
    expect(expired.status).toBe(403);
    expect(expired.text).not.toContain(invoice.number);
  });
});
