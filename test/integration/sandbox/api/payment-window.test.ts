import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WindowLaunch } from "../../../../functions/gateway/resources/payment-window";
import { TEST_MERCHANT } from "../../../../sandbox/state/merchant-config";
import { fillCardForm, launchBrowser, seePage } from "../../../support/browser";
import { type PaymentHarness, startPaymentHarness, succeeded } from "../../../support/payment-sandbox";
import type { RecordedRequest } from "../../../support/recording-server";

// The payment window as a customer meets it, in headless Chromium: a shop's page loads the sandbox's SDK and calls
// EXIMBAY.request_pay with what ready answered; the customer types a card in the window; the result goes to
// status_url and the browser comes back to return_url with it.

let harness: PaymentHarness;
let browser: Browser;

/** The shop's page: the SDK, and a button that opens the window with `params`. */
function shopPage(launch: WindowLaunch, params: unknown): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script src="${launch.sdk_url}"></script></head>
<body><button id="pay" type="button">Pay</button>
<script>document.getElementById("pay").addEventListener("click", function () {
  EXIMBAY.request_pay(${JSON.stringify(params)});
});</script></body></html>`;
}

let shop = "";

beforeAll(async () => {
  harness = await startPaymentHarness();
  harness.site.respondWith((request: RecordedRequest) => {
    if (request.url === "/shop") return { headers: { "content-type": "text/html" }, text: shop };
    if (request.url.startsWith("/status")) return { text: "rescode=0000&resmsg=Success" };
    return { headers: { "content-type": "text/html" }, text: "<h1>Back at the shop</h1>" };
  });
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await harness?.close();
});

/** A window prepared for `orderId` (same tab), and a page at the shop that opens it with `params` (default: as is). */
async function openShop(orderId: string, tamper: (params: Record<string, unknown>) => unknown = (p) => p) {
  const ready = succeeded(
    await harness.client.ready(harness.window(orderId, { settings: { display_type: "R" } })),
  );
  shop = shopPage(ready.launch, tamper({ ...ready.launch.request_pay }));
  const page = await browser.newPage();
  await page.goto(`${harness.site.url}/shop`);
  await Promise.all([page.waitForNavigation(), page.click("#pay")]);
  return { page, fgkey: ready.fgkey };
}

const submit = (page: Page) => Promise.all([page.waitForNavigation(), page.click("button[type=submit]")]);

/** The result the browser brought back to return_url (the last one). */
function returned(): URLSearchParams {
  const posts = harness.site.requests.filter((r) => r.method === "POST" && r.url === "/return");
  return new URLSearchParams(posts.at(-1)?.body ?? "");
}

const heading = (page: Page) => page.$eval("h1", (h1) => h1.textContent);

/** The window's last page posts itself to return_url: wait until the shop's page shows. */
const backAtTheShop = (page: Page) =>
  page.waitForFunction('document.querySelector("h1")?.textContent === "Back at the shop"');

describe("the payment window in a browser", () => {
  it("a customer pays with a test card and comes back to return_url with the result", async () => {
    const { page } = await openShop("window-paid-1");
    expect(await heading(page)).toBe("Pay USD 100.00");
    // Standard autocomplete tokens, each field labelled.
    for (const token of ["cc-name", "cc-number", "cc-exp-month", "cc-exp-year", "cc-csc"]) {
      const id = await page.$eval(`[autocomplete=${token}]`, (field) => field.id);
      expect(await page.$(`label[for="${id}"]`), token).not.toBeNull();
    }
    expect(await page.content()).toContain("4000000000000002");
    await seePage(page, "window-card-form");
    await fillCardForm(page, "4111 1111 1111 1111");
    await submit(page);
    await backAtTheShop(page);
    const result = returned();
    expect(result.get("rescode")).toBe("0000");
    expect(result.get("order_id")).toBe("window-paid-1");
    expect(result.get("transaction_id")?.startsWith(TEST_MERCHANT.mid)).toBe(true);
    expect(result.get("card_number4")).toBe("1111");
    expect([...result.values()].join("&")).not.toContain("4111111111111111");
    // status_url got the same result, server to server.
    expect(harness.statusQueries().some((query) => query.includes("order_id=window-paid-1"))).toBe(true);
    await page.close();
  }, 60_000);

  it("opens in a popup by default (display_type P), the shop's page staying where it was", async () => {
    const ready = succeeded(await harness.client.ready(harness.window("window-popup-1")));
    shop = shopPage(ready.launch, ready.launch.request_pay);
    const page = await browser.newPage();
    await page.goto(`${harness.site.url}/shop`);
    const opened = browser.waitForTarget((target) => target.opener() === page.target());
    await page.click("#pay");
    const popup = await (await opened).page();
    if (popup === null) throw new Error("the window opened no page");
    await popup.waitForFunction('document.querySelector("h1")?.textContent === "Pay USD 100.00"');
    expect(page.url()).toBe(`${harness.site.url}/shop`);
    await fillCardForm(popup, "4111111111111111");
    await submit(popup);
    await backAtTheShop(popup);
    expect(returned().get("order_id")).toBe("window-popup-1");
    expect(returned().get("rescode")).toBe("0000");
    await page.close();
  }, 60_000);

  it("a declined card comes back with its refusal", async () => {
    const { page } = await openShop("window-declined-1");
    await fillCardForm(page, "4000000000000002");
    await submit(page);
    await backAtTheShop(page);
    expect(returned().get("rescode")).toBe("DC05");
    await page.close();
  }, 60_000);

  it("a mistyped card number is refused in the window, which stays open for another try", async () => {
    const { page } = await openShop("window-retyped-1");
    await fillCardForm(page, "4111111111111112");
    await submit(page);
    expect(await page.$eval("[role=alert]", (alert) => alert.textContent)).toMatch(/card_number/);
    await seePage(page, "window-card-refused");
    await fillCardForm(page, "5555555555554444");
    await submit(page);
    await backAtTheShop(page);
    expect(returned().get("rescode")).toBe("0000");
    expect(returned().get("order_id")).toBe("window-retyped-1");
    await page.close();
  }, 60_000);

  it("the card that asks for payer authentication takes a confirmation step first", async () => {
    const { page } = await openShop("window-payer-auth-1");
    await fillCardForm(page, "4000000000003220");
    await submit(page);
    expect(await heading(page)).toBe("Verify it is you");
    await seePage(page, "window-payer-authentication");
    await submit(page);
    await backAtTheShop(page);
    expect(returned().get("rescode")).toBe("0000");
    await page.close();
  }, 60_000);

  it("a malformed or unknown window request is a clear page, never a server error", async () => {
    const post = (path: string, body: string, type = "application/x-www-form-urlencoded") =>
      fetch(`${harness.sandbox.url}${path}`, { method: "POST", headers: { "content-type": type }, body });
    for (const [path, body, type] of [
      ["/v1/payments/window", "params=%7Bnot-json"],
      ["/v1/payments/window", "params=%7B%7D"],
      ["/v1/payments/window", `params=${encodeURIComponent('{"fgkey":"F00D"}')}`],
      ["/v1/payments/window", "", "application/json"],
      ["/v1/payments/window/unknown-fgkey/pay", "card_number=4111111111111111"],
    ] as const) {
      const answer = await post(path, body, type);
      expect(answer.status, `${path} ${body}`).toBeGreaterThanOrEqual(400);
      expect(answer.status, `${path} ${body}`).toBeLessThan(500);
      expect(await answer.text()).not.toContain("4111111111111111");
    }
  });

  it("parameters that differ from the ready request fail the fgkey check: an error page, nothing paid", async () => {
    const { page } = await openShop("window-tampered-1", (params) => ({
      ...params,
      payment: { ...(params.payment as object), amount: "1.00" },
    }));
    expect(await heading(page)).toBe("Payment request refused");
    expect(await page.$eval("[role=alert]", (alert) => alert.textContent)).toMatch(/fgkey/);
    await seePage(page, "window-fgkey-refused");
    const paid = [...harness.sandbox.state.payments.payments()].filter(
      (p) => p.orderId === "window-tampered-1",
    );
    expect(paid).toEqual([]);
    await page.close();
  }, 60_000);

  it("the accessibility check fails a page that breaks WCAG 2.1 (it is not a check that always passes)", async () => {
    const page = await browser.newPage();
    await page.setContent(
      '<html lang="en"><title>Broken</title><main><img src="card.png"><input type="text"><p style="color:#bbb">faint</p></main></html>',
    );
    await expect(seePage(page, "axe-canary")).rejects.toThrow(
      /^axe-core found WCAG 2.1 A\/AA violations on axe-canary:\ncolor-contrast \(serious\): p\nimage-alt \(critical\): img\nlabel \(critical\): input$/,
    );
    await page.close();
  });
});
