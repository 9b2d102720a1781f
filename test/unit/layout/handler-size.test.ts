import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// A handler is short wiring (README, Layout): what it does beyond parsing, one call and its answer belongs to the
// core, pages/ or inbound/. Code lines: neither blank nor a comment.

const HANDLERS = fileURLToPath(new URL("../../../functions/handlers/", import.meta.url));
const MAX_CODE_LINES = 60;

const codeLines = (text: string) =>
  text.split("\n").filter((line) => !/^\s*(\/\/|\/\*|\*|$)/.test(line)).length;

describe("handlers", () => {
  it("counts code lines, comments and blank lines left out", () => {
    expect(codeLines("// why\n/**\n * doc\n */\nexport const a = 1;\n\n  return a;\n")).toBe(2);
  });

  it(`are at most ${MAX_CODE_LINES} code lines each`, () => {
    const files = readdirSync(HANDLERS).filter((name) => name.endsWith(".ts"));
    expect(files.length).toBeGreaterThan(30);
    const long = files
      .map((name) => ({ name, lines: codeLines(readFileSync(join(HANDLERS, name), "utf8")) }))
      .filter(({ lines }) => lines > MAX_CODE_LINES);
    expect(long).toEqual([]);
  });
});
