import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll } from "vitest";
import { LocalStack } from "../../local/local-stack";
import { launchBrowser } from "./browser";

/**
 * A file's whole local stack (`npm start`, on the local clock from `start`) and a headless Chromium, started before
 * its tests and closed after; `call` is the merchant API with the stack's key, answering JSON.
 */
export function localStackWithBrowser(start: Date) {
  let local: LocalStack | undefined;
  let browser: Browser | undefined;
  beforeAll(async () => {
    local = await LocalStack.start({ port: 0, sandboxPort: 0, realTime: false, start });
    browser = await launchBrowser();
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await local?.close();
  });
  const currentLocal = () => {
    if (local === undefined) throw new Error("the local stack starts in beforeAll");
    return local;
  };
  const currentBrowser = () => {
    if (browser === undefined) throw new Error("the browser starts in beforeAll");
    return browser;
  };
  return {
    local: currentLocal,
    browser: currentBrowser,
    async call(method: string, path: string, body?: unknown): Promise<unknown> {
      const response = await fetch(`${currentLocal().url}${path}`, {
        method,
        headers: { "content-type": "application/json", authorization: `Bearer ${currentLocal().apiKey}` },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return response.json();
    },
  };
}
