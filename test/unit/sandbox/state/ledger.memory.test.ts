import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { z } from "zod";

const MB = 1024 * 1024;
const FILL = fileURLToPath(new URL("./fixtures/fill-ledger.ts", import.meta.url));

describe("ledger memory", () => {
  it("holds 100,000 payments under 200 MB RSS", async () => {
    // A fresh process: vitest's own heap would blur the figure.
    const { stdout } = await promisify(execFile)(process.execPath, [
      "--expose-gc",
      "--import",
      "tsx",
      FILL,
      "100000",
    ]);
    const usage = z
      .object({ payments: z.number(), rss: z.number(), heapUsed: z.number() })
      .parse(JSON.parse(stdout));
    expect(usage.payments).toBe(100_000);
    expect(usage.rss).toBeLessThan(200 * MB);
    expect(usage.heapUsed).toBeLessThan(100 * MB);
  }, 60_000);
});
