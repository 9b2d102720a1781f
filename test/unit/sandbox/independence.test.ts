import { readdirSync, readFileSync } from "node:fs";
import { dirname, join, relative, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The sandbox is a second implementation of the gateway: it meets the client only on the wire. Importing the
// client's schemas or helpers would make the two agree by construction, so no sandbox file may reach outside it.

const SANDBOX = fileURLToPath(new URL("../../../sandbox/", import.meta.url));
const SPECIFIER = /(?:import|export)\s[^;]*?from\s+["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)/g;

function sourceFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const path = join(dir, entry.name);
    if (entry.isDirectory()) return sourceFiles(path);
    return entry.name.endsWith(".ts") ? [path] : [];
  });
}

/** Relative imports of a file (its text read unless given) that resolve outside the sandbox directory. */
function importsLeaving(file: string, text = readFileSync(file, "utf8")): string[] {
  return [...text.matchAll(SPECIFIER)]
    .map((match) => match[1] ?? match[2] ?? "")
    .filter((specifier) => specifier.startsWith("."))
    .filter((specifier) => relative(SANDBOX, resolve(dirname(file), specifier)).startsWith(".."));
}

describe("the sandbox's independence", () => {
  it("imports nothing from outside sandbox/ (packages and node: modules only)", () => {
    const files = sourceFiles(SANDBOX);
    expect(files.length).toBeGreaterThan(30);
    const leaving = files.flatMap((file) =>
      importsLeaving(file).map((specifier) => `${relative(SANDBOX, file)} → ${specifier}`),
    );
    expect(leaving).toEqual([]);
  });

  it("would notice an import of the client, static or dynamic, and not one of its own", () => {
    const probe = join(SANDBOX, "probe.ts");
    const text = [
      `import { fgkeyOf } from "./gateway-crypto";`,
      `import type { X } from "../functions/gateway/fgkey";`,
      `const late = await import("../local/leak-scan");`,
    ].join("\n");
    expect(importsLeaving(probe, text)).toEqual(["../functions/gateway/fgkey", "../local/leak-scan"]);
  });
});
