import { readdirSync, readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import { gzipSync } from "node:zlib";
import { z } from "zod";
import { BUNDLE_BUDGET_KB } from "../lib/lambda-bundling";

// Prints the size of every Lambda bundle in a synthesized cloud assembly (run `npm run synth` first):
//   npx tsx scripts/bundle-sizes.ts [--check] [cdk.out]
// Bundles over the budget (BUNDLE_BUDGET_KB, default lib/lambda-bundling.ts's) are flagged; --check exits 1 if there are any.

const args = process.argv.slice(2);
const check = args.includes("--check");
const assemblyDir = args.find((arg) => !arg.startsWith("--")) ?? "cdk.out";
const budgetKb = Number(process.env.BUNDLE_BUDGET_KB ?? BUNDLE_BUDGET_KB);

const manifestSchema = z.object({
  artifacts: z.record(
    z.string(),
    z.object({ type: z.string(), properties: z.object({ templateFile: z.string() }).partial().optional() }),
  ),
});
const templateSchema = z.object({
  Resources: z.record(
    z.string(),
    z.object({
      Type: z.string(),
      Metadata: z.object({ "aws:cdk:path": z.string(), "aws:asset:path": z.string() }).partial().optional(),
    }),
  ),
});

const readJson = (file: string): unknown => JSON.parse(readFileSync(join(assemblyDir, file), "utf8"));

const manifest = manifestSchema.parse(readJson("manifest.json"));
const rows = Object.values(manifest.artifacts)
  .flatMap((artifact) => {
    const templateFile = artifact.properties?.templateFile;
    if (artifact.type !== "aws:cloudformation:stack" || templateFile === undefined) return [];
    return Object.values(templateSchema.parse(readJson(templateFile)).Resources);
  })
  .flatMap((resource) => {
    const assetPath = resource.Metadata?.["aws:asset:path"];
    if (resource.Type !== "AWS::Lambda::Function" || assetPath === undefined) return [];
    const dir = join(assemblyDir, assetPath);
    const files = readdirSync(dir).filter((file) => /\.(m?js|cjs)$/.test(file));
    const bytes = files.reduce((sum, file) => sum + statSync(join(dir, file)).size, 0);
    const gzipped = files.reduce((sum, file) => sum + gzipSync(readFileSync(join(dir, file))).length, 0);
    const path = resource.Metadata?.["aws:cdk:path"] ?? assetPath;
    return [{ fn: path.split("/").slice(0, -1).join("/"), kb: bytes / 1024, gzipKb: gzipped / 1024 }];
  })
  .sort((a, b) => b.kb - a.kb);

if (rows.length === 0) {
  console.error(`no bundled Lambda function in ${assemblyDir}: run \`npm run synth\` first`);
  process.exit(1);
}
const width = Math.max(...rows.map((row) => row.fn.length), "function".length);
const line = (fn: string, kb: string, gz: string, flag: string) =>
  `${fn.padEnd(width)}  ${kb.padStart(9)}  ${gz.padStart(9)}  ${flag}`;
console.log(line("function", "min KB", "gzip KB", ""));
for (const row of rows) {
  console.log(
    line(row.fn, row.kb.toFixed(1), row.gzipKb.toFixed(1), row.kb > budgetKb ? `> ${budgetKb} KB` : ""),
  );
}
const over = rows.filter((row) => row.kb > budgetKb).length;
console.log(`${rows.length} functions, ${over} over the ${budgetKb} KB budget`);
if (check && over > 0) process.exitCode = 1;
