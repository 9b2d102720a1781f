import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { buildOpenApiDocument } from "../functions/api/openapi";

// Writes the merchant API's OpenAPI document: `npx tsx scripts/write-openapi.ts [path] [--local]` (default
// ./openapi.json): the deployed API's, or with --local local mode's (npm start), which adds its own routes.

const args = process.argv.slice(2);
const local = args.includes("--local");
const target = resolve(args.find((arg) => arg !== "--local") ?? "openapi.json");
await writeFile(target, `${JSON.stringify(buildOpenApiDocument({ local }), null, 2)}\n`);
console.log(`wrote ${target}`);
