import { execFile } from "node:child_process";
import { readFile } from "node:fs/promises";
import { builtinModules } from "node:module";
import { promisify } from "node:util";
import { beforeAll, describe, expect, it } from "vitest";
import { buildCli } from "../../../scripts/build-cli";

// `npx billing` as an installed package runs it: the built bundle on Node alone, importing nothing but the
// production dependencies (no tsx, nothing from devDependencies).

const run = promisify(execFile);
const packageOf = (specifier: string) =>
  specifier.startsWith("@")
    ? specifier.split("/").slice(0, 2).join("/")
    : (specifier.split("/")[0] ?? specifier);

let externals: string[];
beforeAll(async () => {
  const metafile = await buildCli();
  externals = Object.values(metafile.outputs)
    .flatMap((output) => output.imports)
    .filter((entry) => entry.external)
    .map((entry) => entry.path);
});

describe("the installed ops CLI", () => {
  it("imports only Node's modules and the production dependencies", async () => {
    const manifest = JSON.parse(await readFile(new URL("../../../package.json", import.meta.url), "utf8"));
    const production = new Set(Object.keys(manifest.dependencies));
    const outside = externals.filter(
      (path) =>
        !path.startsWith("node:") && !builtinModules.includes(path) && !production.has(packageOf(path)),
    );
    expect(outside).toEqual([]);
    expect(externals.map(packageOf)).toContain("commander");
  });

  it("runs through bin/billing.js with node alone and names the target it needs", async () => {
    const help = await run(process.execPath, ["bin/billing.js", "--help"]);
    expect(help.stdout).toContain("charge-run");
    const untargeted = await run(process.execPath, ["bin/billing.js", "charges", "list", "sub_1"]).catch(
      (error: { code: number; stderr: string }) => error,
    );
    expect(untargeted).toMatchObject({
      code: 1,
      stderr:
        "billing: name the target: --local (the stack of npm start) or --outputs <file> (a deployment), e.g. npx billing --local subscriptions list\n",
    });
  });
});
