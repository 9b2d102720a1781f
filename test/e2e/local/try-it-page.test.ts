import { describe, expect, it } from "vitest";
import { subscriptionListView } from "../../../functions/api/merchant-api-views";
import { headingOf, payInPopup, seePage, waitForHeading } from "../../support/browser";
import { localStackInBrowser } from "../../support/local-stack-in-browser";

// The try-it page `npm start` prints, as a person uses it in headless Chromium on the whole local stack: pick a plan,
// land on the hosted checkout the page started through the merchant API, pay in the sandbox's window (a popup), and
// be subscribed, with a way back to the page. A form the page did not fill gets a 400 page naming the field. The
// screenshots of the way through are README's (docs/screenshots/, copied from test-output/screenshots/).

const BROWSER_CASE_MS = 90_000;

const { local, browser, call } = localStackInBrowser(new Date("2027-06-01T08:00:00Z"));

const textOf = (html: string) => html.replace(/<[^>]+>/g, "");

describe("the try-it page", () => {
  it(
    "starts a hosted checkout for the picked plan, which the person pays in the window and is subscribed",
    async () => {
      const tab = await browser().newPage();
      await tab.setViewport({ width: 800, height: 600 });
      await tab.goto(local().tryItUrl);
      expect(await headingOf(tab)).toBe("Try a checkout");
      await seePage(tab, "try-it");
      await tab.click("input[name=plan][value=team]");
      await Promise.all([tab.waitForNavigation(), tab.click("main form button[type=submit]")]);
      expect(tab.url()).toMatch(new RegExp(`^${local().url}/pay/`));
      expect(await headingOf(tab)).toBe("Subscribe");
      const summary = await tab.$eval("main", (main) => main.textContent ?? "");
      expect(summary).toContain("Team");
      expect(summary).toContain("₩12,000 every month");
      await seePage(tab, "try-it-checkout");
      await payInPopup(tab, "4111111111111111", "try-it-checkout");
      await waitForHeading(tab, "You are subscribed");
      await seePage(tab, "try-it-paid");
      await Promise.all([tab.waitForNavigation(), tab.click("a.button")]);
      expect(tab.url()).toBe(`${local().tryItUrl}?checkout=paid`);
      expect(await tab.$eval("[role=status]", (note) => note.textContent ?? "")).toContain("is paid");

      // The mail the customer was sent, in local mode's inbox.
      await tab.goto(`${local().url}/local/mail`);
      expect(await headingOf(tab)).toBe("Mail");
      expect(await tab.$eval("main", (main) => main.textContent ?? "")).toContain("To ada@example.com");
      await seePage(tab, "local-inbox");
      await tab.close();

      const { data } = subscriptionListView.parse(await call("GET", "/v1/subscriptions?status=active"));
      expect(data.map(({ plan }) => plan)).toEqual([
        { amount: "12000", currency: "KRW", interval_months: 1, quantity: 1 },
      ]);
    },
    BROWSER_CASE_MS,
  );

  it(
    "answers a form it did not fill with a 400 page naming the field, and starts nothing",
    async () => {
      // The browser's own checks let a page's form through once told not to validate: the e-mail reaches the API.
      const tab = await browser().newPage();
      await tab.goto(local().tryItUrl);
      await tab.click("#email", { count: 3 });
      await tab.type("#email", "not-an-email");
      await tab.$eval("main form", (form) => form.setAttribute("novalidate", ""));
      const [refused] = await Promise.all([
        tab.waitForNavigation(),
        tab.click("main form button[type=submit]"),
      ]);
      expect(refused?.status()).toBe(400);
      expect(await tab.$eval("[role=alert]", (alert) => alert.textContent ?? "")).toBe(
        "Check the e-mail: Invalid email address",
      );
      expect(await tab.$eval("#email", (input) => input.getAttribute("aria-invalid"))).toBe("true");
      await seePage(tab, "try-it-refused");
      await tab.close();

      const unknownPlan = await fetch(local().tryItUrl, {
        method: "POST",
        headers: { "content-type": "application/x-www-form-urlencoded" },
        body: new URLSearchParams({ name: "Ann", email: "ann@example.com", plan: "gold" }),
      });
      expect(unknownPlan.status).toBe(400);
      expect(unknownPlan.headers.get("content-type")).toBe("text/html; charset=utf-8");
      const page = await unknownPlan.text();
      expect(textOf(page)).toContain("Check the plan: pick one of the plans");
      expect(page).not.toMatch(/\bat .+\.[jt]s:\d+/);

      const pending = subscriptionListView.parse(await call("GET", "/v1/subscriptions?status=pending"));
      expect(pending.data).toEqual([]);
    },
    BROWSER_CASE_MS,
  );
});
