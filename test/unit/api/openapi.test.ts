import passesLuhn from "fast-luhn";
import { describe, expect, it } from "vitest";
import { MERCHANT_API_ROUTES } from "../../../functions/api/merchant-api-routes";
import { buildOpenApiDocument } from "../../../functions/api/openapi";
import { TEST_CARDS } from "../../../sandbox/acquirer/cards";

const doc = buildOpenApiDocument();
const text = JSON.stringify(doc);
const local = buildOpenApiDocument({ local: true });

type Operation = {
  security?: unknown[];
  parameters?: { name: string; in: string }[];
  requestBody?: { required: boolean; content: Record<string, { schema: { $ref?: string } }> };
  responses: Record<
    string,
    {
      headers?: Record<string, unknown>;
      content?: Record<string, { schema: { $ref?: string }; example?: unknown }>;
    }
  >;
};
const operation = (path: string, method: string): Operation => {
  const found = doc.paths[path]?.[method];
  if (!found) throw new Error(`${method} ${path} is missing`);
  return found as Operation;
};

/** The merchant API as README "Merchant API" documents it, route by route. */
const DOCUMENTED_ROUTES = [
  ["get", "/v1/invoices"],
  ["get", "/v1/invoices/{number}"],
  ["get", "/v1/credit-notes"],
  ["get", "/v1/credit-notes/{number}"],
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
  ["post", "/v1/prices"],
  ["get", "/v1/prices"],
  ["get", "/v1/prices/{id}"],
  ["post", "/v1/prices/{id}"],
  ["post", "/v1/coupons"],
  ["get", "/v1/coupons"],
  ["get", "/v1/coupons/{id}"],
  ["post", "/v1/webhook-endpoints"],
  ["get", "/v1/webhook-endpoints"],
  ["delete", "/v1/webhook-endpoints/{id}"],
  ["get", "/v1/webhook-endpoints/{id}/deliveries"],
  ["get", "/webhooks/status"],
  ["post", "/webhooks/status"],
  ["post", "/webhooks/gateway"],
  ["post", "/webhooks/partner"],
  ["post", "/webhooks/recurring"],
] as const;

/** What only local mode serves (README, Local mode): in its document, never in the deployed one. */
const LOCAL_ROUTES = [
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

  it("has every documented route and nothing else; local mode's has its own routes too", () => {
    for (const [method, path] of DOCUMENTED_ROUTES) operation(path, method);
    const routesOf = (document: typeof doc) =>
      Object.entries(document.paths)
        .flatMap(([path, methods]) => Object.keys(methods).map((method) => `${method} ${path}`))
        .sort();
    const named = (routes: readonly (readonly [string, string])[]) =>
      routes.map(([method, path]) => `${method} ${path}`);
    expect(routesOf(doc)).toEqual(named(DOCUMENTED_ROUTES).sort());
    expect(routesOf(local)).toEqual(named([...DOCUMENTED_ROUTES, ...LOCAL_ROUTES]).sort());
    expect(MERCHANT_API_ROUTES).toHaveLength(DOCUMENTED_ROUTES.length + LOCAL_ROUTES.length);
    // The schemas only local routes name are in local mode's document alone.
    expect(Object.keys(doc.components.schemas)).not.toContain("LocalClockRequest");
    expect(Object.keys(local.components.schemas)).toContain("LocalClockRequest");
  });

  it("names its servers, its license and its tags", () => {
    expect(doc.servers).toEqual([
      expect.objectContaining({ url: "https://{apiId}.execute-api.{region}.amazonaws.com" }),
    ]);
    expect(local.servers).toEqual([expect.objectContaining({ url: "http://127.0.0.1:{port}" })]);
    expect(buildOpenApiDocument({ serverUrl: "https://api.example.org" }).servers).toEqual([
      expect.objectContaining({ url: "https://api.example.org" }),
    ]);
    expect(doc.info).toMatchObject({ license: { identifier: "Apache-2.0" } });
    const tags = (document: typeof doc) => (document.tags as { name: string }[]).map((tag) => tag.name);
    expect(tags(doc)).toEqual(["merchant", "gateway callbacks"]);
    expect(tags(local)).toEqual(["merchant", "gateway callbacks", "local mode"]);
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
        // The gateway's callbacks refuse in its own dialects (below); every other error is the Error body.
        if (Number(status) >= 400 && (status === "500" || !path.startsWith("/webhooks/"))) {
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
    const refusal = (path: string, status: string) =>
      operation(path, "post").responses[status]?.content?.["application/json"]?.schema.$ref;
    expect(refusal("/webhooks/gateway", "401")).toBe("#/components/schemas/GatewayRefusal");
    expect(refusal("/webhooks/recurring", "404")).toBe("#/components/schemas/GatewayRefusal");
    expect(refusal("/webhooks/partner", "400")).toBe("#/components/schemas/PartnerReply");
    expect(operation("/v1/subscriptions", "post").responses).toHaveProperty("422");
    expect(operation("/v1/subscriptions", "post").responses).toHaveProperty("202");
    expect(operation("/v1/subscriptions/{id}", "get").responses).toHaveProperty("404");
  });

  it("gives every path's 405 with Allow, every merchant write's body and 415, and the replay header", () => {
    for (const [method, path] of DOCUMENTED_ROUTES) {
      const { responses, requestBody } = operation(path, method);
      const methods = DOCUMENTED_ROUTES.filter(([, other]) => other === path).map(([m]) => m.toUpperCase());
      expect(responses["405"]?.headers?.Allow, `${method} ${path}`).toMatchObject({
        required: true,
        example: methods.join(", "),
      });
      expect(responses["405"]?.content?.["application/json"]?.example).toEqual({
        error: { code: "method_not_allowed", message: "this method is not allowed here" },
      });
      const merchantWrite = method !== "get" && !path.startsWith("/webhooks/");
      // Every merchant write says what body it takes (a bodiless one: {} or nothing) and refuses any other type.
      if (merchantWrite) expect(requestBody?.content, `${method} ${path}`).toHaveProperty("application/json");
      if (method === "get") expect(requestBody, `${method} ${path}`).toBeUndefined();
      expect(Object.keys(responses).includes("415"), `${method} ${path}`).toBe(merchantWrite);
      // An answer kept under an Idempotency-Key says so when it comes again; a 202 or a 5xx is never kept.
      const replayable = Object.entries(responses)
        .filter(([, answer]) => answer.headers?.["Idempotent-Replayed"] !== undefined)
        .map(([status]) => status);
      if (method === "post" && !path.startsWith("/webhooks/")) {
        expect(replayable, `${method} ${path}`).toEqual(expect.arrayContaining(["400", "409"]));
        expect(
          replayable.filter((status) => ["202", "401", "405", "415", "500", "503"].includes(status)),
        ).toEqual([]);
        expect(replayable.some((status) => status.startsWith("2"))).toBe(true);
      } else expect(replayable, `${method} ${path}`).toEqual([]);
    }
    expect(operation("/v1/subscriptions/{id}/resume", "post").requestBody).toMatchObject({
      required: false,
      content: { "application/json": { schema: { $ref: "#/components/schemas/EmptyRequest" } } },
    });
  });

  it("every merchant POST takes an Idempotency-Key; callbacks need no bearer", () => {
    for (const [method, path] of DOCUMENTED_ROUTES) {
      const op = operation(path, method);
      const headers = (op.parameters ?? []).filter((p) => p.in === "header").map((p) => p.name);
      const callback = path.startsWith("/webhooks/");
      expect(op.security, `${method} ${path}`).toEqual(callback ? [] : undefined);
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
      required: expect.arrayContaining(["customer", "card"]),
      properties: {
        plan: expect.objectContaining({ type: "object" }),
        price: expect.objectContaining({ type: "string" }),
        card: { additionalProperties: false, required: ["number", "expiry", "cvc"] },
      },
    });
    for (const name of ["Subscription", "Charge", "ChargeList", "Refund", "Checkout"]) {
      const names = propertyNames(schemas[name]);
      expect(names.length, name).toBeGreaterThan(3);
      for (const secret of ["number", "cvc", "token_id", "expiry"]) expect(names, name).not.toContain(secret);
    }
  });

  it("shows an example of every request body and answer, and no card number but the example's own", () => {
    for (const document of [doc, local]) {
      for (const [path, methods] of Object.entries(document.paths)) {
        for (const [method, op] of Object.entries(methods) as [string, Operation][]) {
          const bodies = [
            ...Object.values(op.responses),
            ...(op.requestBody
              ? [op.requestBody as { content: Operation["responses"][string]["content"] }]
              : []),
          ];
          for (const body of bodies) {
            for (const content of Object.values(body.content ?? {}))
              expect(content, `${method} ${path}`).toHaveProperty("example");
          }
        }
      }
    }
    // The example card (card.number of the sign-up and new-card examples) is no sandbox test card: a test card in
    // an answer is a leak to the leak scans. Every other run of 12 or more digits (in transaction ids) fails Luhn.
    const luhnRuns = [...new Set([...text.matchAll(/\d{12,19}/g)].map(([run]) => run))].filter(passesLuhn);
    expect(luhnRuns).toEqual(["4242424242424242"]);
    expect(Object.keys(TEST_CARDS)).not.toContain("4242424242424242");
  });
});

/** Every property name a JSON schema declares, at any depth. */
function propertyNames(schema: unknown): string[] {
  if (Array.isArray(schema)) return schema.flatMap(propertyNames);
  if (typeof schema !== "object" || schema === null) return [];
  const { properties, ...rest } = schema as { properties?: Record<string, unknown> };
  const own = properties === undefined ? [] : Object.keys(properties);
  return [
    ...own,
    ...Object.values(properties ?? {}).flatMap(propertyNames),
    ...Object.values(rest).flatMap(propertyNames),
  ];
}
