import { existsSync, readdirSync, readFileSync, statSync } from "node:fs";
import { join, relative } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// Outside the unit tier, behaviour is driven as production drives it: through the functions of the table (README,
// Layout). The integration and end-to-end tests, their support, the benchmarks and local mode may take the core's
// types, schemas, constants and pure helpers, never one of its operations.

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const FOLDERS = ["test/integration", "test/e2e", "test/support", "bench", "local"];

/** Rooms of the core that hold no operation: vocabulary, arithmetic and ports. */
const VOCABULARY = new Set(["base", "ports"]);
/** From modules that also hold operations: the constants and pure helpers a test may name. */
const PURE_NAMES: Readonly<Record<string, readonly string[]>> = {
  "delivery/event-delivery": ["EVERY_OUTBOX"],
  "intake/intake": ["STATUS_URL_GRACE_MS"],
  "partner/partner-webhook-setup": ["PAYMENT_COMPLETED_EVENT"],
  "refunds/reconciliation": ["reconciliationReportSchema"],
  "refunds/settlements": ["reconciliationRunSchema", "SETTLEMENT_DELAY_DAYS", "SETTLEMENT_GRACE_DAYS"],
  "reports/revenue": ["revenueReportSchema", "revenueNowSchema", "movementTotals", "netMovement"],
  "reports/payouts": ["payoutsReportSchema"],
  "machine/apply-input": ["meetsExpectation"],
  "delivery/webhooks": [
    "WEBHOOK_MAX_RECEIVE_COUNT",
    "WEBHOOK_RETRY_WINDOW_MS",
    "webhookAttemptSchedule",
    "webhookRetryDelaySeconds",
  ],
};

const CORE_IMPORT =
  /\bimport\s+(type\s+)?([^;]*?)\s+from\s+"(?:\.\.\/)+functions\/core\/([a-z-]+\/[a-z-]+)"/g;

function sources(folder: string): string[] {
  if (!existsSync(folder)) return [];
  return readdirSync(folder).flatMap((name) => {
    const path = join(folder, name);
    if (statSync(path).isDirectory()) return sources(path);
    return path.endsWith(".ts") ? [path] : [];
  });
}

/** The value names a file imports from each core module (type-only names left out). */
function coreValueImports(text: string): { module: string; names: string[] }[] {
  return [...text.matchAll(CORE_IMPORT)].flatMap(([, typeOnly, clause = "", module = ""]) => {
    if (typeOnly) return [];
    const named = clause.match(/^\{([^}]*)\}$/s);
    // A namespace or default import takes everything: named as such.
    if (!named) return [{ module, names: [clause] }];
    const names = (named[1] ?? "")
      .split(",")
      .map((name) => name.trim())
      .filter((name) => name !== "" && !name.startsWith("type "))
      .map((name) => name.split(/\s+as\s+/)[0] ?? name);
    return names.length === 0 ? [] : [{ module, names }];
  });
}

const operationsTaken = (file: string) =>
  coreValueImports(readFileSync(file, "utf8")).flatMap(({ module, names }) =>
    VOCABULARY.has(module.split("/")[0] ?? "")
      ? []
      : names
          .filter((name) => !PURE_NAMES[module]?.includes(name))
          .map((name) => `${relative(ROOT, file)}: ${name} (core module ${module})`),
  );

describe("the proof runs the real handlers", () => {
  it("reads value imports, leaving type-only ones out", () => {
    const text = [
      'import { runChargeRun } from "../../functions/core/charging/charge-run";',
      'import type { ChargeRunReport } from "../../functions/core/charging/charge-run";',
      'import { type Clock, InvalidCursorError } from "../functions/core/ports/billing-repository";',
      'import * as core from "../../../functions/core/signup/signup";',
    ].join("\n");
    expect(coreValueImports(text)).toEqual([
      { module: "charging/charge-run", names: ["runChargeRun"] },
      { module: "ports/billing-repository", names: ["InvalidCursorError"] },
      { module: "signup/signup", names: ["* as core"] },
    ]);
  });

  it("no test outside the unit tier, no benchmark and nothing of local mode calls a core operation", () => {
    const files = FOLDERS.flatMap((folder) => sources(join(ROOT, folder)));
    expect(files.length).toBeGreaterThan(100);
    expect(files.flatMap(operationsTaken)).toEqual([]);
  });
});
