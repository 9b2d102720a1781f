import type { Page } from "puppeteer-core";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import { portalSessionView } from "../../../functions/api/merchant-api-schemas";
import { headingOf, payInPopup, seePage } from "../../support/browser";
import { localStackInBrowser } from "../../support/local-stack-in-browser";

// The customer portal as a customer meets it, on the whole local stack in headless Chromium: a renewal declines, the
// SaaS makes a portal link, the customer opens it, pays the overdue period with a new card in the sandbox's window
// and is active again; an expired link is refused.

// Each case jumps the clock a month and checks every page it sees with axe-core: about 80 s alone on these machines.
const BROWSER_CASE_MS = 180_000;
const DECLINES_ON_RENEWAL = "4000000000000341";

const subscriptionView = z.looseObject({ subscription_id: z.string(), status: z.string() });
const chargeList = z.object({ charges: z.array(z.looseObject({ period: z.number(), status: z.string() })) });

const { local: stack, browser: chromium, call } = localStackInBrowser(new Date("2027-07-01T08:00:00Z"));

const textOf = (page: Page) => page.$eval("main", (main) => main.textContent ?? "");

describe("the customer portal in a browser", () => {
  it(
    "a past_due customer opens the portal, pays the overdue period with a new card and is active again",
    async () => {
      const { subscription_id: id } = subscriptionView.parse(
        await call("POST", "/v1/subscriptions", {
          customer: { name: "Portal Customer", email: "portal@example.com", external_id: "acct_browser" },
          plan: { amount: "19.90", currency: "USD", interval_months: 1 },
          card: { number: DECLINES_ON_RENEWAL, expiry: "203012", cvc: "123" },
        }),
      );
      // A month on, the renewal declines (the local clock's charge run, the charge worker).
      await call("POST", "/local/clock", { advance: "P31D" });
      expect(subscriptionView.parse(await call("GET", `/v1/subscriptions/${id}`)).status).toBe("past_due");

      const session = portalSessionView.parse(
        await call("POST", "/v1/portal-sessions", {
          external_id: "acct_browser",
          return_url: `${stack().url}/openapi.json`,
        }),
      );
      const tab = await chromium().newPage();
      await tab.goto(session.url);
      expect(await textOf(tab)).toContain("Your last payment of $19.90 did not go through.");
      await seePage(tab, "portal-past-due");

      await Promise.all([
        tab.waitForNavigation(),
        tab.click(`form[action$="/subscriptions/${id}/card"] button[type=submit]`),
      ]);
      expect(await headingOf(tab)).toBe("Update your card");
      await seePage(tab, "portal-card");
      await payInPopup(tab, "4111111111111111", "portal-card");
      await tab.waitForFunction(
        'document.querySelector("main")?.textContent?.includes("Your card was updated.")',
        { timeout: 30_000 },
      );
      expect(await textOf(tab)).toContain("Status: Active");
      await seePage(tab, "portal-card-updated");

      expect(subscriptionView.parse(await call("GET", `/v1/subscriptions/${id}`)).status).toBe("active");
      const { charges } = chargeList.parse(await call("GET", `/v1/subscriptions/${id}/charges`));
      expect(charges.filter((charge) => charge.period === 1).map((charge) => charge.status)).toEqual([
        "declined",
        "succeeded",
      ]);

      // Both paid periods' invoices are listed, the newest first; one opens as its page, with its PDF a link away.
      const invoices = await tab.$$eval("main section table a[href*='/documents/']", (anchors) =>
        anchors.map((anchor) => anchor.textContent ?? ""),
      );
      expect(invoices).toEqual([
        expect.stringMatching(/^Invoice INV-2027-\d{6}$/),
        expect.stringMatching(/^Invoice INV-2027-\d{6}$/),
      ]);
      await seePage(tab, "portal-invoices");
      await Promise.all([tab.waitForNavigation(), tab.click("main section table a[href*='/documents/']")]);
      expect(await headingOf(tab)).toBe(invoices[0]);
      expect(await textOf(tab)).toContain("$19.90");
      const pdf = await tab.$eval("a.button", (anchor) => anchor.getAttribute("href") ?? "");
      const file = await fetch(new URL(pdf, tab.url()));
      expect(file.headers.get("content-type")).toBe("application/pdf");
      await seePage(tab, "invoice-page");
      await tab.goBack();

      // Fifteen minutes on, the link opens nothing.
      await call("POST", "/local/clock", { advance: "PT16M" });
      const expired = await tab.goto(session.url);
      expect(expired?.status()).toBe(403);
      expect(await headingOf(tab)).toBe("This link has expired");
      await seePage(tab, "portal-expired");
      await tab.close();
    },
    BROWSER_CASE_MS,
  );

  it(
    "an active customer cancels at the period's end in the portal, and a month on sees the subscription canceled",
    async () => {
      const customer = {
        name: "Leaving Customer",
        email: "leaving@example.com",
        external_id: "acct_leaving",
      };
      const { subscription_id: id } = subscriptionView.parse(
        await call("POST", "/v1/subscriptions", {
          customer,
          plan: { amount: "19.90", currency: "USD", interval_months: 1 },
          card: { number: "4111111111111111", expiry: "203012", cvc: "123" },
        }),
      );
      const openPortal = async () => {
        const session = portalSessionView.parse(
          await call("POST", "/v1/portal-sessions", { external_id: customer.external_id }),
        );
        const tab = await chromium().newPage();
        await tab.goto(session.url);
        return tab;
      };
      const tab = await openPortal();
      expect(await textOf(tab)).toContain("Status: Active");
      await seePage(tab, "portal-active");
      await Promise.all([
        tab.waitForNavigation(),
        tab.click(`form[action$="/subscriptions/${id}/cancel"] button[type=submit]`),
      ]);
      expect(subscriptionView.parse(await call("GET", `/v1/subscriptions/${id}`)).status).toBe("active");
      expect(await tab.$(`form[action$="/subscriptions/${id}/keep"]`)).not.toBeNull();
      await seePage(tab, "portal-cancel-scheduled");
      await tab.close();

      await call("POST", "/local/clock", { advance: "P32D" });
      expect(subscriptionView.parse(await call("GET", `/v1/subscriptions/${id}`)).status).toBe("canceled");
      const later = await openPortal();
      expect(await textOf(later)).toContain("Status: Canceled");
      expect(await later.$("main form")).toBeNull();
      await seePage(later, "portal-canceled");
      await later.close();
    },
    BROWSER_CASE_MS,
  );
});
