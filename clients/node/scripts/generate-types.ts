import { writeFile } from "node:fs/promises";
import { fileURLToPath } from "node:url";
import { OPENAPI_TYPES_FILE, openapiTypesSource } from "./openapi-types-source";

// `npm run generate -w clients/node`: writes src/openapi-types.ts from the merchant API's OpenAPI document.

await writeFile(OPENAPI_TYPES_FILE, await openapiTypesSource());
console.log(`wrote ${fileURLToPath(OPENAPI_TYPES_FILE)}`);
