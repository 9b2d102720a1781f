import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The core's rooms import downward only, held by one Biome override per room (biome.json). A file left loose in
// functions/core, or a room without its override, would escape the rule: this test keeps the two in step.

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));
const CORE = join(ROOT, "functions/core");

interface Override {
  includes: string[];
  linter?: {
    rules?: { style?: { noRestrictedImports?: { options?: { patterns?: { group: string[] }[] } } } };
  };
}

const overrides: Override[] = JSON.parse(readFileSync(join(ROOT, "biome.json"), "utf8")).overrides;
const forbiddenFor = (room: string) =>
  overrides
    .find((override) => override.includes.includes(`functions/core/${room}/**`))
    ?.linter?.rules?.style?.noRestrictedImports?.options?.patterns?.flatMap((pattern) => pattern.group);

describe("the core's rooms", () => {
  const entries = readdirSync(CORE);
  const rooms = entries.filter((name) => statSync(join(CORE, name)).isDirectory());

  it("holds every file in a room", () => {
    expect(rooms.length).toBeGreaterThan(5);
    expect(entries.filter((name) => !rooms.includes(name))).toEqual([]);
  });

  it("gives every room its import rule, the gateway, adapters and the other rooms above it forbidden", () => {
    for (const room of rooms) {
      const forbidden = forbiddenFor(room);
      expect(forbidden, room).toEqual(
        expect.arrayContaining(["**/gateway/**", "**/adapters/**", "**/handlers/**"]),
      );
      expect(forbidden, room).not.toContain(`**/${room}/**`);
    }
    expect(forbiddenFor("base")).toEqual(
      expect.arrayContaining(rooms.filter((room) => room !== "base").map((room) => `**/${room}/**`)),
    );
  });

  it("keeps a room to about a dozen files", () => {
    for (const room of rooms) expect(readdirSync(join(CORE, room)).length, room).toBeLessThanOrEqual(14);
  });
});
