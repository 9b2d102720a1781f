import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";

// The core's rooms and local mode's import downward only, held by one Biome override per room (biome.json). A file
// left loose beside the rooms, or a room without its override, would escape the rule: this test keeps the two in step.

const ROOT = fileURLToPath(new URL("../../../", import.meta.url));

interface Override {
  includes: string[];
  linter?: {
    rules?: { style?: { noRestrictedImports?: { options?: { patterns?: { group: string[] }[] } } } };
  };
}

const overrides: Override[] = JSON.parse(readFileSync(join(ROOT, "biome.json"), "utf8")).overrides;
const forbiddenFor = (folder: string, room: string) =>
  overrides
    .find((override) => override.includes.includes(`${folder}/${room}/**`))
    ?.linter?.rules?.style?.noRestrictedImports?.options?.patterns?.flatMap((pattern) => pattern.group);
const roomsOf = (folder: string) =>
  readdirSync(join(ROOT, folder)).filter((name) => statSync(join(ROOT, folder, name)).isDirectory());

describe.each(["functions/core", "functions/pages", "functions/adapters", "local"])(
  "the rooms of %s",
  (folder) => {
    const rooms = roomsOf(folder);

    it("holds every file in a room", () => {
      expect(rooms.length).toBeGreaterThan(3);
      expect(readdirSync(join(ROOT, folder)).filter((name) => !rooms.includes(name))).toEqual([]);
    });

    it("gives every room its import rule", () => {
      for (const room of rooms) expect(forbiddenFor(folder, room), room).toBeDefined();
    });

    it("keeps a room to about a dozen files", () => {
      for (const room of rooms)
        expect(readdirSync(join(ROOT, folder, room)).length, room).toBeLessThanOrEqual(14);
    });
  },
);

describe("the core's rooms", () => {
  const rooms = roomsOf("functions/core");

  it("forbid the gateway, adapters and the other rooms above them", () => {
    for (const room of rooms) {
      const forbidden = forbiddenFor("functions/core", room);
      expect(forbidden, room).toEqual(
        expect.arrayContaining(["**/gateway/**", "**/adapters/**", "**/handlers/**"]),
      );
      expect(forbidden, room).not.toContain(`**/${room}/**`);
    }
    expect(forbiddenFor("functions/core", "base")).toEqual(
      expect.arrayContaining(rooms.filter((room) => room !== "base").map((room) => `**/${room}/**`)),
    );
  });
});

describe("the pages' rooms", () => {
  it("forbid each page's room to the others, and every one to shared", () => {
    const rooms = roomsOf("functions/pages");
    for (const room of rooms.filter((name) => name !== "shared"))
      expect(forbiddenFor("functions/pages", room)?.sort(), room).toEqual(
        rooms.filter((other) => other !== room && other !== "shared").map((other) => `../${other}/**`),
      );
    expect(forbiddenFor("functions/pages", "shared")?.sort()).toEqual(
      rooms.filter((room) => room !== "shared").map((room) => `../${room}/**`),
    );
  });
});

describe("local mode's rooms", () => {
  const rooms = roomsOf("local");

  it("forbid the chaos run and the demo to every room below them, and every other room to aws", () => {
    for (const room of rooms) {
      const forbidden = forbiddenFor("local", room);
      expect(forbidden, room).not.toContain(`../${room}/**`);
      if (room !== "chaos" && room !== "demo")
        expect(forbidden, room).toEqual(expect.arrayContaining(["../chaos/**", "../demo/**"]));
    }
    expect(forbiddenFor("local", "aws")).toEqual(
      expect.arrayContaining(rooms.filter((room) => room !== "aws").map((room) => `../${room}/**`)),
    );
  });
});
