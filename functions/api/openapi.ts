import * as z from "zod";
import {
  MERCHANT_API_ROUTES,
  type MerchantApiRoute,
  REQUEST_SCHEMAS,
  RESPONSE_SCHEMAS,
  type ResponseSchemaName,
} from "./merchant-api-routes";
import { IDEMPOTENCY_KEY_HEADER, idempotencyKey } from "./merchant-api-schemas";

// The OpenAPI 3.1 document of the merchant API, generated from the route table and its zod schemas with zod's own
// JSON Schema output (draft 2020-12, the dialect of OpenAPI 3.1): nothing is written twice.

type JsonObject = { [key: string]: unknown };

export interface OpenApiDocument extends JsonObject {
  readonly openapi: "3.1.0";
  readonly paths: Record<string, Record<string, JsonObject>>;
  readonly components: { readonly schemas: Record<string, JsonObject> } & JsonObject;
}

/** A schema as JSON Schema 2020-12, without the `$schema` line (OpenAPI 3.1 states the dialect once). */
function jsonSchema(schema: z.ZodType, io: "input" | "output"): JsonObject {
  const { $schema: _dialect, ...rest } = z.toJSONSchema(schema, {
    target: "draft-2020-12",
    io,
    override: ({ jsonSchema: generated }) => {
      // A format (date-time, email) says what its generated pattern spells out at length.
      if (generated.format !== undefined) delete generated.pattern;
      // z.int()'s implicit safe-integer bounds are noise to a reader.
      if (generated.maximum === Number.MAX_SAFE_INTEGER) delete generated.maximum;
      if (generated.minimum === Number.MIN_SAFE_INTEGER) delete generated.minimum;
    },
  });
  return rest;
}

const ref = (name: string) => ({ $ref: `#/components/schemas/${name}` });

const ERROR_DESCRIPTIONS = {
  400: "Invalid request: the field is named; values are never echoed",
  401: "Missing or invalid credentials",
  404: "No such resource",
  409: "Conflict: canceled subscription, concurrent change, or Idempotency-Key reused with another body",
  422: "Well-formed but refused: declined (code = the gateway's rescode), rejected by the gateway, not refundable",
  500: "Unexpected error (generic message)",
  503: "Gateway unavailable, or the outcome of an untracked change unknown: repeat after Retry-After",
} as const;

function errorAnswer(status: keyof typeof ERROR_DESCRIPTIONS): JsonObject {
  const headers =
    status === 503
      ? { "Retry-After": { description: "Seconds to wait", schema: { type: "integer", minimum: 1 } } }
      : status === 401
        ? { "WWW-Authenticate": { schema: { type: "string" } } }
        : undefined;
  return {
    description: ERROR_DESCRIPTIONS[status],
    ...(headers ? { headers } : {}),
    content: { "application/json": { schema: ref("Error") } },
  };
}

function answers(route: MerchantApiRoute): JsonObject {
  const out: JsonObject = {};
  for (const answer of route.answers) {
    const schema: ResponseSchemaName = answer.schema;
    out[String(answer.status)] = {
      description: answer.description,
      content: { [answer.mediaType ?? "application/json"]: { schema: ref(schema) } },
    };
  }
  for (const status of [...route.errors, 500 as const]) out[String(status)] ??= errorAnswer(status);
  return out;
}

function parameters(route: MerchantApiRoute): JsonObject[] {
  const out: JsonObject[] = [];
  for (const [name, schema] of Object.entries(route.pathParams?.shape ?? {})) {
    out.push({ name, in: "path", required: true, schema: jsonSchema(schema, "input") });
  }
  if (route.query && "schema" in route.query) {
    for (const [name, schema] of Object.entries(route.query.schema.shape)) {
      const required = !(schema instanceof z.ZodOptional);
      out.push({ name, in: "query", required, schema: jsonSchema(schema, "input") });
    }
  } else if (route.query) {
    // Free-form: every query parameter is part of the value (the window result passed to verify).
    out.push({
      name: "result",
      in: "query",
      style: "form",
      explode: true,
      schema: ref(route.query.freeForm),
    });
  }
  if (route.auth === "bearer" && route.method === "POST") {
    out.push({
      name: IDEMPOTENCY_KEY_HEADER,
      in: "header",
      required: false,
      schema: jsonSchema(idempotencyKey, "input"),
    });
  }
  return out;
}

function tagOf(route: MerchantApiRoute): string {
  if (route.localOnly) return "local mode";
  return route.auth === "bearer" ? "merchant" : "gateway callbacks";
}

function operation(route: MerchantApiRoute): JsonObject {
  const params = parameters(route);
  return {
    operationId: route.operationId,
    summary: route.summary,
    tags: [tagOf(route)],
    ...(route.auth === "none" ? { security: [] } : {}),
    ...(params.length > 0 ? { parameters: params } : {}),
    ...(route.body
      ? {
          requestBody: {
            required: route.body.optional !== true,
            content: { [route.body.mediaType]: { schema: ref(route.body.schema) } },
          },
        }
      : {}),
    responses: answers(route),
    ...(route.localOnly ? { "x-local-only": true } : {}),
  };
}

function componentSchemas(): Record<string, JsonObject> {
  const schemas: Record<string, JsonObject> = {};
  for (const [name, schema] of Object.entries(REQUEST_SCHEMAS)) schemas[name] = jsonSchema(schema, "input");
  for (const [name, schema] of Object.entries(RESPONSE_SCHEMAS)) schemas[name] = jsonSchema(schema, "output");
  return schemas;
}

export interface OpenApiOptions {
  /** Base URL of a deployment (API Gateway stage URL, or the local router). */
  readonly serverUrl?: string;
  readonly version?: string;
}

export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of MERCHANT_API_ROUTES) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route) };
  }
  return {
    openapi: "3.1.0",
    info: {
      title: "Recurring billing — merchant API",
      version: options.version ?? "0.1.0",
      description:
        "Subscriptions billed through the card gateway. Amounts are decimal strings. Errors are " +
        '{"error":{"code","message","field"?}}; bad input never yields a 5xx.',
    },
    ...(options.serverUrl ? { servers: [{ url: options.serverUrl }] } : {}),
    security: [{ bearer: [] }],
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "The merchant API key" },
      },
      schemas: componentSchemas(),
    },
  };
}
