import type { Browser } from "puppeteer-core";
import { afterAll, beforeAll } from "vitest";
import { LocalStack } from "../../local/stack/local-stack";
import { launchBrowser } from "./browser";

// Pages as a person meets them: the whole local stack as `npm start` runs it (one HTTP server for the merchant API,
// our webhooks and our pages; its clock moving only when told) and headless Chromium.

/**
 * A test file's local stack, its clock starting at `start`, and a browser: started before the file's tests, closed
 * after them.
 */
export function localStackInBrowser(start: Date) {
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
  const currentStack = () => {
    if (local === undefined) throw new Error("the local stack starts in beforeAll");
    return local;
  };
  return {
    local: currentStack,
    browser: () => {
      if (browser === undefined) throw new Error("the browser starts in beforeAll");
      return browser;
    },
    /** The merchant API with the stack's key: the answer's JSON. */
    async call(method: string, path: string, body?: unknown): Promise<unknown> {
      const response = await fetch(`${currentStack().url}${path}`, {
        method,
        headers: { "content-type": "application/json", authorization: `Bearer ${currentStack().apiKey}` },
        ...(body === undefined ? {} : { body: JSON.stringify(body) }),
      });
      return response.json();
    },
  };
}
