import { describe, expect, it } from "vitest";
import { MERCHANT_API_ROUTES } from "../../../functions/api/merchant-api-routes";
import { buildOpenApiDocument } from "../../../functions/api/openapi";

const doc = buildOpenApiDocument();
const text = JSON.stringify(doc);

type Operation = {
  security?: unknown[];
  parameters?: { name: string; in: string }[];
  requestBody?: unknown;
  responses: Record<string, { content?: Record<string, { schema: { $ref?: string } }> }>;
};
const operation = (path: string, method: string): Operation => {
  const found = doc.paths[path]?.[method];
  if (!found) throw new Error(`${method} ${path} is missing`);
  return found as Operation;
};

/** The merchant API as README "Merchant API" documents it, route by route. */
const DOCUMENTED_ROUTES = [
  ["post", "/v1/checkouts"],
  ["post", "/v1/portal-sessions"],
  ["post", "/v1/subscriptions"],
  ["get", "/v1/subscriptions"],
  ["get", "/v1/subscriptions/{id}"],
  ["post", "/v1/subscriptions/{id}"],
  ["post", "/v1/subscriptions/{id}/adjust"],
  ["post", "/v1/subscriptions/{id}/payment-method"],
  ["post", "/v1/subscriptions/{id}/pause"],
  ["post", "/v1/subscriptions/{id}/resume"],
  ["delete", "/v1/subscriptions/{id}"],
  ["post", "/v1/subscriptions/{id}/charges"],
  ["get", "/v1/subscriptions/{id}/charges"],
  ["get", "/v1/charges/{id}/receipt"],
  ["post", "/v1/charges/{id}/refunds"],
  ["post", "/v1/webhook-endpoints"],
  ["get", "/v1/webhook-endpoints"],
  ["delete", "/v1/webhook-endpoints/{id}"],
  ["get", "/v1/webhook-endpoints/{id}/deliveries"],
  ["get", "/webhooks/status"],
  ["post", "/webhooks/status"],
  ["post", "/webhooks/gateway"],
  ["post", "/webhooks/partner"],
  ["post", "/webhooks/recurring"],
  ["post", "/local/clock"],
  ["get", "/local/mail"],
] as const;

describe("the merchant API's OpenAPI document", () => {
  it("is OpenAPI 3.1 with a bearer security scheme applied by default", () => {
    expect(doc.openapi).toBe("3.1.0");
    expect(doc.components).toMatchObject({
      securitySchemes: { bearer: { type: "http", scheme: "bearer" } },
    });
    expect(doc.security).toEqual([{ bearer: [] }]);
    expect(JSON.parse(text)).toEqual(doc);
  });

  it("has every documented route and nothing else", () => {
    for (const [method, path] of DOCUMENTED_ROUTES) operation(path, method);
    const documented = Object.entries(doc.paths).flatMap(([path, methods]) =>
      Object.keys(methods).map((method) => `${method} ${path}`),
    );
    expect(documented.sort()).toEqual(DOCUMENTED_ROUTES.map(([method, path]) => `${method} ${path}`).sort());
    expect(MERCHANT_API_ROUTES).toHaveLength(DOCUMENTED_ROUTES.length);
  });

  it("resolves every $ref to a component schema", () => {
    const refs = [...text.matchAll(/"\$ref":"([^"]+)"/g)].map((match) => match[1]);
    expect(refs.length).toBeGreaterThan(20);
    for (const target of refs) {
      const name = target?.replace("#/components/schemas/", "") ?? "";
      expect(target, target).toMatch(/^#\/components\/schemas\//);
      expect(doc.components.schemas[name], target).toBeDefined();
    }
  });

  it("documents the error body and the errors of each operation; 500 everywhere", () => {
    expect(doc.components.schemas.Error).toMatchObject({
      type: "object",
      required: ["error"],
      additionalProperties: false,
    });
    for (const [method, path] of DOCUMENTED_ROUTES) {
      const { responses } = operation(path, method);
      expect(responses["500"]?.content?.["application/json"]?.schema.$ref).toBe("#/components/schemas/Error");
      for (const [status, answer] of Object.entries(responses)) {
        // status_url refuses in the gateway's own text dialect (below); every other error is the Error body.
        if (Number(status) >= 400 && !(path === "/webhooks/status" && status === "400")) {
          expect(answer.content?.["application/json"]?.schema.$ref, `${method} ${path} ${status}`).toBe(
            "#/components/schemas/Error",
          );
        }
      }
    }
    for (const method of ["get", "post"] as const) {
      const { responses } = operation("/webhooks/status", method);
      for (const status of ["200", "400"]) {
        expect(responses[status]?.content?.["text/plain"]?.schema.$ref).toBe(
          "#/components/schemas/StatusReply",
        );
      }
    }
    expect(doc.components.schemas.StatusReply).toMatchObject({ type: "string" });
    expect(operation("/v1/subscriptions", "post").responses).toHaveProperty("422");
    expect(operation("/v1/subscriptions", "post").responses).toHaveProperty("202");
    expect(operation("/v1/subscriptions/{id}", "get").responses).toHaveProperty("404");
  });

  it("every merchant POST takes an Idempotency-Key; callbacks and the local inbox need no bearer", () => {
    for (const [method, path] of DOCUMENTED_ROUTES) {
      const op = operation(path, method);
      const headers = (op.parameters ?? []).filter((p) => p.in === "header").map((p) => p.name);
      const callback = path.startsWith("/webhooks/");
      expect(op.security, `${method} ${path}`).toEqual(callback || path === "/local/mail" ? [] : undefined);
      expect(headers, `${method} ${path}`).toEqual(method === "post" && !callback ? ["Idempotency-Key"] : []);
      if (path.includes("{id}")) {
        expect(op.parameters).toContainEqual(
          expect.objectContaining({ name: "id", in: "path", required: true }),
        );
      }
    }
  });

  it("request bodies are strict; card data is write-only input and never part of a response", () => {
    const { schemas } = doc.components;
    expect(schemas.CreateSubscriptionRequest).toMatchObject({
      additionalProperties: false,
      required: expect.arrayContaining(["customer", "plan", "card"]),
      properties: {
        card: { additionalProperties: false, required: ["number", "expiry", "cvc"] },
      },
    });
    for (const name of ["Subscription", "Charge", "ChargeList", "Refund", "Checkout"]) {
      const schema = JSON.stringify(schemas[name]);
      expect(schema, name).not.toMatch(/"(number|cvc|token_id|expiry)"/);
    }
  });

  it("has no card numbers (no run of 12 or more digits) and no examples anywhere", () => {
    expect(text).not.toMatch(/\d{12,}/);
    expect(text).not.toMatch(/"examples?"/);
  });
});
