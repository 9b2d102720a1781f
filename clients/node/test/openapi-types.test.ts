import { readFile } from "node:fs/promises";
import { describe, expect, it } from "vitest";
import { OPENAPI_TYPES_FILE, openapiTypesSource } from "../scripts/openapi-types-source";

// The client cannot drift from the API: its types are what openapi-typescript makes of the document as it is now.

describe("the client's generated types", () => {
  it("are what openapi-typescript makes of the merchant API's OpenAPI document (else: npm run generate -w clients/node)", async () => {
    expect(await readFile(OPENAPI_TYPES_FILE, "utf8")).toBe(await openapiTypesSource());
  });
});
