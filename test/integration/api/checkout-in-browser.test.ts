import type { Browser, Page } from "puppeteer-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { fillCardInPopup, launchBrowser } from "../../support/browser";
import { type RecordingServer, startRecordingServer } from "../../support/recording-server";
import { drainIntake } from "../../support/webhook-receiver";
import { stackWithWebhooks, type WindowCheckout } from "../../support/webhook-stack";

// A window sign-up end to end, as a SaaS page and its customer make it: POST /v1/checkouts through the merchant API;
// the shop's page loads the answer's sdk_url and calls EXIMBAY.request_pay with its request_pay, unchanged; the
// customer types a card in the sandbox's window (a popup, in headless Chromium); the sandbox posts the result to our
// status_url and the browser back to the shop; process-intake verifies it and the subscription is active.

const { stack, call, checkout, container } = stackWithWebhooks();

let shop: RecordingServer;
let browser: Browser;
let page = "";

beforeAll(async () => {
  shop = await startRecordingServer((request) =>
    request.url === "/shop"
      ? { headers: { "content-type": "text/html" }, text: page }
      : { headers: { "content-type": "text/html" }, text: "<h1>Back at the shop</h1>" },
  );
  browser = await launchBrowser();
}, 60_000);

afterAll(async () => {
  await browser?.close();
  await shop?.close();
});

/** The shop's page for a checkout: the SDK it names, and a pay button handing request_pay over as it came. */
function shopPage(started: WindowCheckout): string {
  return `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Shop</title>
<script src="${started.sdk_url}"></script></head>
<body><button id="pay" type="button">Subscribe</button>
<script>document.getElementById("pay").addEventListener("click", function () {
  EXIMBAY.request_pay(${JSON.stringify(started.request_pay)});
});</script></body></html>`;
}

/** The customer opens the shop, presses the button and pays with `cardNumber` in the popup window. */
async function payInBrowser(started: WindowCheckout, cardNumber: string, name: string): Promise<Page> {
  page = shopPage(started);
  const tab = await browser.newPage();
  await tab.goto(`${shop.url}/shop`);
  const popup = await fillCardInPopup(tab, "#pay", cardNumber, name);
  await Promise.all([popup.waitForNavigation(), popup.click("button[type=submit]")]);
  await popup.waitForFunction('document.querySelector("h1")?.textContent === "Back at the shop"');
  await tab.close();
  return popup;
}

const subscriptionView = z.looseObject({
  status: z.string(),
  card: z.looseObject({ last4: z.string() }).nullable(),
});

async function subscriptionOf(id: string) {
  const answer = await call("GET", `/v1/subscriptions/${id}`);
  return subscriptionView.parse(answer.json);
}

/** The result the browser brought back to the shop's return_url. */
function returned(): URLSearchParams {
  const posts = shop.requests.filter((request) => request.method === "POST" && request.url === "/return");
  return new URLSearchParams(posts.at(-1)?.body ?? "");
}

describe("a window sign-up in a browser", () => {
  it("a customer pays in the window opened with the checkout's request_pay and the subscription is active", async () => {
    const started = await checkout({ return_url: `${shop.url}/return` });
    expect((await subscriptionOf(started.subscription_id)).status).toBe("pending");
    const popup = await payInBrowser(started, "4111111111111111", "checkout-window-card");
    await popup.close();
    expect(returned().get("order_id")).toBe(started.order_id);
    expect(returned().get("rescode")).toBe("0000");
    // Our status_url took the result as the real gateway sends it; process-intake verified it.
    await stack().sandbox.deliveries.settled();
    const [delivery] = stack().sandbox.deliveries.entries("status_url").slice(-1);
    expect(delivery).toMatchObject({ method: "POST", acknowledged: true });
    await drainIntake(container);
    expect(await subscriptionOf(started.subscription_id)).toMatchObject({
      status: "active",
      card: { last4: "1111" },
    });
  }, 60_000);

  it("a declined card comes back refused, and the checkout ends canceled", async () => {
    const started = await checkout({ return_url: `${shop.url}/return` });
    const popup = await payInBrowser(started, "4000000000000002", "checkout-window-declined");
    await popup.close();
    expect(returned().get("rescode")).toBe("DC05");
    await stack().sandbox.deliveries.settled();
    await drainIntake(container);
    // A refused window ends its checkout; the merchant may start another.
    expect(await subscriptionOf(started.subscription_id)).toMatchObject({ status: "canceled", card: null });
  }, 60_000);
});
