import { describe, expect, it } from "vitest";
import { z } from "zod";
import { checkoutView } from "../../../functions/api/merchant-api-views";
import {
  headingOf,
  payInPopup,
  platformFontsOf,
  seePage,
  tabTo,
  waitForHeading,
} from "../../support/browser";
import { localStackInBrowser } from "../../support/local-stack-in-browser";

// The hosted checkout as a customer meets it, on the whole local stack (`npm start`: one HTTP server for the merchant
// API, our webhooks and our pages; process-intake fed by the intake queue's event source mapping) in headless
// Chromium: the merchant creates a checkout, the customer opens checkout_url, pays in the sandbox's window (a
// popup), comes back to our page, which waits for the verified result and shows the subscription. A declined card
// shows its reason and a retry pays on the same subscription. Seats and a coupon show on the page, and the gateway
// charges what the page said was due.

const BROWSER_CASE_MS = 90_000;

const subscriptionView = z.looseObject({ status: z.string() });
const chargeList = z.object({
  charges: z.array(z.looseObject({ order_id: z.string(), status: z.string() })),
});
/** The sandbox's record of the payments it took. */
const sandboxPayments = z.object({
  records: z.array(
    z.looseObject({ orderId: z.string(), status: z.string(), amount: z.string(), currency: z.string() }),
  ),
});

const { local, browser, call } = localStackInBrowser(new Date("2027-06-01T08:00:00Z"));

async function hostedCheckout() {
  return checkoutView.parse(
    await call("POST", "/v1/checkouts", {
      customer: { name: "Hosted Customer", email: "hosted@example.com" },
      plan: { amount: "12000", currency: "KRW", interval_months: 1 },
      billing: "token",
      description: "Team plan",
      success_url: `${local().url}/openapi.json`,
    }),
  );
}

describe("the hosted checkout in a browser", () => {
  it(
    "a customer opens checkout_url, pays in the window and sees the subscription",
    async () => {
      const checkout = await hostedCheckout();
      const tab = await browser().newPage();
      await tab.goto(checkout.checkout_url);
      expect(await headingOf(tab)).toBe("Subscribe");
      expect(await tab.$eval("main", (main) => main.textContent ?? "")).toContain("₩12,000 every month");
      await seePage(tab, "hosted-checkout");
      await payInPopup(tab, "4111111111111111", "hosted-checkout");
      await waitForHeading(tab, "You are subscribed");
      await seePage(tab, "hosted-checkout-paid");
      expect(await tab.$eval("a.button", (link) => link.getAttribute("href"))).toBe(
        `${local().url}/openapi.json`,
      );
      expect(
        subscriptionView.parse(await call("GET", `/v1/subscriptions/${checkout.subscription_id}`)),
      ).toMatchObject({ status: "active" });
      await tab.close();
    },
    BROWSER_CASE_MS,
  );

  it(
    "a declined card shows its reason, and a retry pays on the same subscription",
    async () => {
      const checkout = await hostedCheckout();
      const tab = await browser().newPage();
      await tab.setExtraHTTPHeaders({ "accept-language": "ko-KR,ko;q=0.9" });
      await tab.goto(checkout.checkout_url);
      expect(await headingOf(tab)).toBe("구독하기");
      // Set in Noto Sans KR (loaded into the browser from @embedpdf/fonts-kr): the screenshot shows the words.
      expect(await platformFontsOf(tab, "h1")).toEqual([expect.stringMatching(/^Noto Sans K(R|orean)/)]);
      await seePage(tab, "hosted-checkout-ko");
      await payInPopup(tab, "4000000000009995", "hosted-checkout-declined");
      await waitForHeading(tab, "결제가 완료되지 않았습니다");
      expect(await tab.$eval("[role=alert]", (alert) => alert.textContent ?? "")).toContain(
        "카드 잔액이 부족합니다",
      );
      await seePage(tab, "hosted-checkout-declined");
      await Promise.all([tab.waitForNavigation(), tab.click("main form button[type=submit]")]);
      expect(await headingOf(tab)).toBe("구독하기");
      await payInPopup(tab, "5555555555554444", "hosted-checkout-retry");
      await waitForHeading(tab, "구독이 완료되었습니다");
      const { charges } = chargeList.parse(
        await call("GET", `/v1/subscriptions/${checkout.subscription_id}/charges`),
      );
      expect(charges.map(({ order_id, status }) => [order_id, status])).toEqual([
        [`${checkout.subscription_id}-0-0`, "declined"],
        [`${checkout.subscription_id}-0-1`, "succeeded"],
      ]);
      await tab.close();
    },
    BROWSER_CASE_MS,
  );

  it(
    "a checkout for 3 seats with a coupon shows them and what is due today, and the gateway charges that",
    async () => {
      const coupon = z.looseObject({ coupon_id: z.string() }).parse(
        await call("POST", "/v1/coupons", {
          percent_off: 20,
          duration: "repeating",
          duration_in_months: 3,
          code: "LAUNCH20",
        }),
      );
      const checkout = checkoutView.parse(
        await call("POST", "/v1/checkouts", {
          customer: { name: "Team Customer", email: "team@example.com" },
          plan: { amount: "19.90", currency: "USD", interval_months: 1 },
          quantity: 3,
          coupon: "launch20",
          billing: "token",
          description: "Team plan",
        }),
      );
      const tab = await browser().newPage();
      await tab.goto(checkout.checkout_url);
      expect(await headingOf(tab)).toBe("Subscribe");
      const main = await tab.$eval("main", (element) => element.innerText);
      expect(main).toContain("Team plan");
      expect(main).toContain("$59.70 every month, 3 seats × $19.90");
      const facts = await tab.$$eval("main dl > *", (cells) => cells.map((cell) => cell.textContent ?? ""));
      expect(facts).toEqual(["Coupon", "LAUNCH20: −$11.94 (20% off, 3 charges)", "Due today", "$47.76"]);
      await seePage(tab, "hosted-checkout-seats-coupon");
      await payInPopup(tab, "4111111111111111", "hosted-checkout-seats-coupon");
      await waitForHeading(tab, "You are subscribed");
      const paid = await tab.$eval("main", (element) => element.innerText);
      expect(paid).toContain("LAUNCH20: −$11.94 (20% off, 2 more charges, the last on August 1, 2027)");
      expect(paid).toContain("Next charge: $47.76 on July 1, 2027");
      await seePage(tab, "hosted-checkout-seats-coupon-paid");
      expect(
        subscriptionView.parse(await call("GET", `/v1/subscriptions/${checkout.subscription_id}`)),
      ).toMatchObject({ status: "active", discount: { coupon_id: coupon.coupon_id, charges_left: 2 } });
      // What the gateway took for the sign-up's order: the seats' total less the coupon, as the page said.
      const ledger = await fetch(`${local().sandboxUrl}/sandbox/ledger?kind=payments&limit=1000`);
      const payments = sandboxPayments
        .parse(await ledger.json())
        .records.filter((payment) => payment.orderId === checkout.order_id);
      expect(payments.map(({ status, amount, currency }) => ({ status, amount, currency }))).toEqual([
        { status: "SALE", amount: "47.76", currency: "USD" },
      ]);
      await tab.close();
    },
    BROWSER_CASE_MS,
  );

  it(
    "a customer pays by keyboard alone: Tab to the pay button, Enter; Tab through the window's card form, Enter",
    async () => {
      const checkout = await hostedCheckout();
      const tab = await browser().newPage();
      await tab.goto(checkout.checkout_url);
      const opened = tab.browser().waitForTarget((target) => target.opener() === tab.target());
      await tabTo(tab, "#pay-form button[type=submit]");
      await tab.keyboard.press("Enter");
      const popup = await (await opened).page();
      if (popup === null) throw new Error("Enter opened no window");
      await popup.waitForSelector("[autocomplete=cc-number]");
      for (const [field, typed] of [
        ["[autocomplete=cc-name]", "Ada Lovelace"],
        ["[autocomplete=cc-number]", "4111111111111111"],
        ["[autocomplete=cc-exp-month]", "12"],
        ["[autocomplete=cc-exp-year]", "2030"],
        ["[autocomplete=cc-csc]", "123"],
      ] as const) {
        await tabTo(popup, field);
        await popup.keyboard.type(typed);
      }
      await seePage(popup, "hosted-checkout-keyboard-window");
      await tabTo(popup, "button[type=submit]");
      const closed = new Promise((resolve) => popup.once("close", resolve));
      await popup.keyboard.press("Enter");
      await closed;
      await waitForHeading(tab, "You are subscribed");
      expect(
        subscriptionView.parse(await call("GET", `/v1/subscriptions/${checkout.subscription_id}`)),
      ).toMatchObject({ status: "active" });
      await tab.close();
    },
    BROWSER_CASE_MS,
  );

  it(
    "a checkout nobody paid in time says it has expired and offers nothing to pay",
    async () => {
      const checkout = checkoutView.parse(
        await call("POST", "/v1/checkouts", {
          customer: { name: "Late Customer", email: "late@example.com" },
          plan: { amount: "19.90", currency: "USD", interval_months: 1 },
          billing: "token",
          expires_in_minutes: 30,
        }),
      );
      await call("POST", "/local/clock", { advance: "PT31M" });
      const tab = await browser().newPage();
      const answer = await tab.goto(checkout.checkout_url);
      expect(answer?.status()).toBe(410);
      expect(await headingOf(tab)).toBe("This checkout has expired");
      expect(await tab.$("#pay-form")).toBeNull();
      await seePage(tab, "hosted-checkout-expired");
      await tab.close();
    },
    BROWSER_CASE_MS,
  );
});
