import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

// What `npm pack` of the client holds: its built code and types, its README and package.json — no source, test or
// script. (npm ci builds dist through the repository's prepare script.)

const PACKAGE_DIR = fileURLToPath(new URL("..", import.meta.url));

describe("the client package", () => {
  it("packs only its dist (code and types), README and package.json", async () => {
    const { stdout } = await promisify(execFile)("npm", ["pack", "--dry-run", "--json", "--ignore-scripts"], {
      cwd: PACKAGE_DIR,
    });
    const [packed] = JSON.parse(stdout) as { files: { path: string }[] }[];
    const paths = (packed?.files ?? []).map((file) => file.path).sort();
    expect(paths.filter((path) => !path.startsWith("dist/"))).toEqual(["README.md", "package.json"]);
    expect(paths).toEqual(
      expect.arrayContaining(["dist/index.js", "dist/index.d.ts", "dist/openapi-types.d.ts"]),
    );
    expect(paths.filter((path) => /\.ts$/.test(path) && !path.endsWith(".d.ts"))).toEqual([]);
  });
});
