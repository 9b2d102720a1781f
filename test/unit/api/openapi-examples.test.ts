import { describe, expect, it } from "vitest";
import { parseInput } from "../../../functions/api/errors";
import {
  MERCHANT_API_ROUTES,
  REQUEST_SCHEMAS,
  RESPONSE_SCHEMAS,
} from "../../../functions/api/merchant-api-routes";
import { OPERATION_EXAMPLES } from "../../../functions/api/openapi-examples";

// The OpenAPI document's examples are what the API takes and gives: each parsed by its route's own zod schema (the
// request as the handler parses it, card-number check included; each answer by its strict view schema).

const routes = MERCHANT_API_ROUTES.map((route) => [route.operationId, route] as const);

describe("the OpenAPI examples", () => {
  it("cover every operation, and no other", () => {
    expect(Object.keys(OPERATION_EXAMPLES).sort()).toEqual(routes.map(([id]) => id).sort());
  });

  it.each(routes)("%s: its request is one the route accepts", (operationId, route) => {
    const example = OPERATION_EXAMPLES[operationId];
    if (example === undefined) throw new Error(`${operationId} has no example`);
    const body = route.body;
    if (body) expect(() => parseInput(REQUEST_SCHEMAS[body.schema], example.request)).not.toThrow();
    else expect(example.request).toBeUndefined();
    if (route.query && "schema" in route.query) parseInput(route.query.schema, example.query);
    else if (route.query) REQUEST_SCHEMAS[route.query.freeForm].parse(example.query?.result);
    else expect(example.query).toBeUndefined();
  });

  it.each(routes)(
    "%s: every answer of its own has an example its schema takes as it is",
    (operationId, route) => {
      const answers = OPERATION_EXAMPLES[operationId]?.answers ?? {};
      expect(Object.keys(answers).sort()).toEqual(
        route.answers.map((answer) => String(answer.status)).sort(),
      );
      for (const answer of route.answers) {
        const example = answers[answer.status];
        expect(RESPONSE_SCHEMAS[answer.schema].parse(example), `${answer.status}`).toEqual(example);
      }
    },
  );
});
