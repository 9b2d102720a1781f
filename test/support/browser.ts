import { mkdir } from "node:fs/promises";
import chromium from "@sparticuz/chromium";
import puppeteer, { type Browser, type Page } from "puppeteer-core";

// Headless Chromium from the @sparticuz/chromium package (its binary ships inside the package: nothing is downloaded
// at run time), driven by puppeteer-core. The package's default --disable-web-security is dropped, so CORS and the
// same-origin rules hold in the tests as in a customer's browser.

/** Where the browser tests keep a screenshot of each page they saw (test output, not committed). */
export const SCREENSHOT_DIR = new URL("../../test-output/screenshots/", import.meta.url);

export async function launchBrowser(): Promise<Browser> {
  const args = chromium.args.filter((arg) => arg !== "--disable-web-security");
  return puppeteer.launch({ executablePath: await chromium.executablePath(), args, headless: true });
}

/** Types a test card into a card form by its standard autocomplete tokens (any future expiry, any CVC). */
export async function fillCardForm(page: Page, cardNumber: string): Promise<void> {
  await page.type("[autocomplete=cc-name]", "Ada Lovelace");
  await page.type("[autocomplete=cc-number]", cardNumber);
  await page.select("[autocomplete=cc-exp-month]", "12");
  await page.type("[autocomplete=cc-exp-year]", "2030");
  await page.type("[autocomplete=cc-csc]", "123");
}

/** Keeps a full-page screenshot of what the page shows now, as `<name>.png`. */
export async function screenshot(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({
    path: new URL(`${name}.png`, SCREENSHOT_DIR).pathname as `${string}.png`,
    fullPage: true,
  });
}

/**
 * Presses `button` on `tab`, which opens the payment window in a popup, and types `cardNumber` into the window's card
 * form (kept as `<name>-window.png`); the popup, ready to submit.
 */
export async function fillCardInPopup(
  tab: Page,
  button: string,
  cardNumber: string,
  name: string,
): Promise<Page> {
  const opened = tab.browser().waitForTarget((target) => target.opener() === tab.target());
  await tab.click(button);
  const popup = await (await opened).page();
  if (popup === null) throw new Error("the window opened no page");
  await popup.waitForSelector("[autocomplete=cc-number]");
  await fillCardForm(popup, cardNumber);
  await screenshot(popup, `${name}-window`);
  return popup;
}

/** Presses the checkout page's pay button and pays with `cardNumber` in the window's popup, which closes once back. */
export async function payInPopup(tab: Page, cardNumber: string, name: string): Promise<void> {
  const popup = await fillCardInPopup(tab, "#pay-form button[type=submit]", cardNumber, name);
  const closed = new Promise((resolve) => popup.once("close", resolve));
  await popup.click("button[type=submit]");
  // Back on our return page, the popup hands the outcome to the checkout's tab and closes itself.
  await closed;
}

export const headingOf = (page: Page): Promise<string> =>
  page.$eval("h1", (heading) => heading.textContent ?? "");

/** Waits until the tab shows `heading` (the checkout page reloads itself while the result is verified). */
export async function waitForHeading(tab: Page, heading: string): Promise<void> {
  await tab.waitForFunction(`document.querySelector("h1")?.textContent === ${JSON.stringify(heading)}`, {
    timeout: 30_000,
  });
}
