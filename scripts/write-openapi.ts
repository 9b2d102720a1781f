import { writeFile } from "node:fs/promises";
import { resolve } from "node:path";
import { buildOpenApiDocument } from "../functions/api/openapi";

// Writes the merchant API's OpenAPI document: `npx tsx scripts/write-openapi.ts [path]` (default ./openapi.json).

const target = resolve(process.argv[2] ?? "openapi.json");
await writeFile(target, `${JSON.stringify(buildOpenApiDocument(), null, 2)}\n`);
console.log(`wrote ${target}`);
