import { mkdir, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { AxePuppeteer } from "@axe-core/puppeteer";
import chromium from "@sparticuz/chromium";
import puppeteer, { type Browser, type Page } from "puppeteer-core";
import { documentFontDir } from "../../lib/document-fonts";

// Headless Chromium from the @sparticuz/chromium package (its binary ships inside the package: nothing is downloaded
// at run time), driven by puppeteer-core. The package's default --disable-web-security is dropped, so CORS and the
// same-origin rules hold in the tests as in a customer's browser.

/** Where the browser tests keep a screenshot of each page they saw (test output, not committed). */
export const SCREENSHOT_DIR = new URL("../../test-output/screenshots/", import.meta.url);

/**
 * A fontconfig of the browser's own fonts (which @sparticuz/chromium unpacks into /tmp/fonts) and Noto Sans KR
 * (@embedpdf/fonts-kr, the typeface of our documents), so Korean pages show their text, not boxes.
 */
async function fontConfigDir(): Promise<string> {
  const dir = fileURLToPath(new URL("../../test-output/fontconfig/", import.meta.url));
  await mkdir(dir, { recursive: true });
  const config = [
    '<?xml version="1.0"?>',
    '<!DOCTYPE fontconfig SYSTEM "fonts.dtd">',
    "<fontconfig>",
    `  <dir>${join(tmpdir(), "fonts")}</dir>`,
    `  <dir>${documentFontDir()}</dir>`,
    `  <cachedir>${join(dir, "cache")}</cachedir>`,
    "</fontconfig>",
  ];
  await writeFile(join(dir, "fonts.conf"), `${config.join("\n")}\n`);
  return dir;
}

export async function launchBrowser(): Promise<Browser> {
  const args = chromium.args.filter((arg) => arg !== "--disable-web-security");
  const executablePath = await chromium.executablePath();
  // The browser, a customer's device, keeps the real clock under `npm run test:dates`: the pages must not depend on
  // the device's date agreeing with ours, and libfaketime slows Chromium about threefold.
  const { LD_PRELOAD: _faketime, ...deviceEnv } = process.env;
  const env = { ...deviceEnv, FONTCONFIG_PATH: await fontConfigDir() };
  return puppeteer.launch({ executablePath, args, headless: true, env });
}

/** Types a test card into a card form by its standard autocomplete tokens (any future expiry, any CVC). */
export async function fillCardForm(page: Page, cardNumber: string): Promise<void> {
  await page.type("[autocomplete=cc-name]", "Ada Lovelace");
  await page.type("[autocomplete=cc-number]", cardNumber);
  await page.select("[autocomplete=cc-exp-month]", "12");
  await page.type("[autocomplete=cc-exp-year]", "2030");
  await page.type("[autocomplete=cc-csc]", "123");
}

/** The rules of WCAG 2.1 levels A and AA, as axe-core tags them. */
const WCAG_21_AA = ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"];

/**
 * What a person sees now: a full-page screenshot kept as `<name>.png`, and the page held to WCAG 2.1 A and AA by
 * axe-core (@axe-core/puppeteer, every frame): a violation fails the test, named with the elements it found.
 */
export async function seePage(page: Page, name: string): Promise<void> {
  await mkdir(SCREENSHOT_DIR, { recursive: true });
  await page.screenshot({
    path: new URL(`${name}.png`, SCREENSHOT_DIR).pathname as `${string}.png`,
    fullPage: true,
  });
  const { violations } = await new AxePuppeteer(page).withTags(WCAG_21_AA).analyze();
  const found = violations.map(
    (violation) =>
      `${violation.id} (${violation.impact}): ${violation.nodes.map((node) => node.target.join(" ")).join(", ")}`,
  );
  if (found.length > 0)
    throw new Error(`axe-core found WCAG 2.1 A/AA violations on ${name}:\n${found.join("\n")}`);
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
  await seePage(popup, `${name}-window`);
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

/** The fonts the browser drew the text of the element `selector` with (DevTools' "Rendered Fonts"). */
export async function platformFontsOf(page: Page, selector: string): Promise<string[]> {
  const session = await page.createCDPSession();
  await session.send("DOM.enable");
  await session.send("CSS.enable");
  const { root } = await session.send("DOM.getDocument");
  const { nodeId } = await session.send("DOM.querySelector", { nodeId: root.nodeId, selector });
  const { fonts } = await session.send("CSS.getPlatformFontsForNode", { nodeId });
  await session.detach();
  return fonts.map((font) => font.familyName);
}

/** Presses Tab until the element `selector` has the focus, as a keyboard user does; fails if it never gets it. */
export async function tabTo(page: Page, selector: string, presses = 40): Promise<void> {
  for (let pressed = 0; pressed < presses; pressed++) {
    await page.keyboard.press("Tab");
    if ((await page.$(`:is(${selector}):focus`)) !== null) return;
  }
  throw new Error(`${selector} never took the focus in ${presses} presses of Tab`);
}

export const headingOf = (page: Page): Promise<string> =>
  page.$eval("h1", (heading) => heading.textContent ?? "");

/** Waits until the tab shows `heading` (the checkout page reloads itself while the result is verified). */
export async function waitForHeading(tab: Page, heading: string): Promise<void> {
  await tab.waitForFunction(`document.querySelector("h1")?.textContent === ${JSON.stringify(heading)}`, {
    timeout: 30_000,
  });
}
