import * as z from "zod";
import {
  ApiError,
  gatewayFailure,
  idempotencyKeyReused,
  methodNotAllowed,
  notFound,
  notRefundable,
  parseInput,
  subscriptionCanceled,
  toErrorResponse,
  unauthorized,
  unsupportedMediaType,
} from "./errors";
import {
  MERCHANT_API_ROUTES,
  type MerchantApiRoute,
  REQUEST_SCHEMAS,
  RESPONSE_SCHEMAS,
  type ResponseSchemaName,
} from "./merchant-api-routes";
import { IDEMPOTENCY_KEY_HEADER, idempotencyKey } from "./merchant-api-schemas";
import { OPERATION_EXAMPLES, type OperationExample } from "./openapi-examples";

// The OpenAPI 3.1 document of the merchant API, generated from the route table and its zod schemas with zod's own
// JSON Schema output (draft 2020-12, the dialect of OpenAPI 3.1): nothing is written twice. Two documents: the
// deployed API's (served by get-openapi, written by scripts/write-openapi.ts) and local mode's, which adds the routes
// only `npm start` serves (POST /local/clock). Both pass Redocly's recommended rules with no error or warning
// (test/integration/api/openapi.lint.test.ts); every operation carries an example of its request and answers.

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

/** The example of an operation; every route has one (test/unit/api/openapi-examples.test.ts). */
const exampleOf = (route: MerchantApiRoute): OperationExample =>
  OPERATION_EXAMPLES[route.operationId] ?? { answers: {} };

/** `{example}` when there is one. */
const withExample = (example: unknown): JsonObject => (example === undefined ? {} : { example });

const ERROR_DESCRIPTIONS = {
  400: "Invalid request: the field is named; values are never echoed",
  401: "Missing or invalid credentials",
  404: "No such resource",
  405: "This path under a method it does not take (the error the API answers for any other method): Allow lists those it does",
  409: "Conflict: canceled subscription, concurrent change, or Idempotency-Key reused with another body",
  415: "The body is not sent as application/json: nothing is read or changed",
  422: "Well-formed but refused: declined (code = the gateway's rescode), rejected by the gateway, not refundable",
  500: "Unexpected error (generic message)",
  503: "Gateway unavailable, or the outcome of an untracked change unknown: repeat after Retry-After",
} as const;

/** The first refusal of an input the route's own schema refuses: an unknown body field, a malformed id or limit. */
function invalidInputError(route: MerchantApiRoute): unknown {
  const body = route.body && REQUEST_SCHEMAS[route.body.schema];
  const request = exampleOf(route).request;
  const attempts: [z.ZodType | undefined, unknown][] = [
    [body, typeof request === "object" ? { ...request, colour: "blue" } : { colour: "blue" }],
    [route.pathParams, { id: "not an id!" }],
    [route.query && "schema" in route.query ? route.query.schema : undefined, { limit: "500" }],
  ];
  for (const [schema, input] of attempts) {
    if (schema === undefined) continue;
    try {
      parseInput(schema, input);
    } catch (error) {
      return error;
    }
  }
  return new ApiError(400, "malformed_json", "the request body is not valid JSON");
}

/** The methods the route's path takes, as Allow lists them. */
const methodsOfPath = (route: MerchantApiRoute) =>
  MERCHANT_API_ROUTES.filter((other) => other.path === route.path).map((other) => other.method);

/** What the API answers with each error status on this route, from the error mapper itself (errors.ts). */
function errorExample(route: MerchantApiRoute, status: keyof typeof ERROR_DESCRIPTIONS): unknown {
  const charges = route.path.startsWith("/v1/charges/");
  const errors = {
    400: () => invalidInputError(route),
    401: unauthorized,
    404: () => notFound(charges ? "charge" : "subscription"),
    405: () => methodNotAllowed(methodsOfPath(route)),
    409: () => (route.method === "POST" ? idempotencyKeyReused() : subscriptionCanceled()),
    422: () =>
      route.path.endsWith("/refunds")
        ? notRefundable("no successful charge with that id")
        : gatewayFailure({
            kind: "declined",
            code: "DC51",
            message: "insufficient funds",
            errcode: "INSUFFICIENT_FUNDS",
            reason: "insufficient_funds",
          }),
    415: unsupportedMediaType,
    500: () => new Error("unexpected"),
    503: () => gatewayFailure({ kind: "unavailable", reason: "connection refused" }),
  } satisfies Record<keyof typeof ERROR_DESCRIPTIONS, () => unknown>;
  return toErrorResponse(errors[status]()).body;
}

/** A POST honouring Idempotency-Key (idempotency.ts): its kept answers come again, marked, to a repeat. */
const isIdempotent = (route: MerchantApiRoute) => route.auth === "bearer" && route.method === "POST";

/** The header of an answer kept under an Idempotency-Key and answered again. */
const REPLAY_HEADER = {
  "Idempotent-Replayed": {
    description:
      "true: the answer kept for an earlier request with the same Idempotency-Key and body, answered again without a second effect",
    schema: { type: "string", enum: ["true"] },
  },
};
/** The answers idempotency.ts keeps: a 2xx but 202, and the refusals of the request itself (not 401, 415, 5xx). */
const isKept = (status: number) => (status < 300 && status !== 202) || [400, 404, 409, 422].includes(status);

function errorAnswer(route: MerchantApiRoute, status: keyof typeof ERROR_DESCRIPTIONS): JsonObject {
  const headers = {
    ...(status === 503
      ? { "Retry-After": { description: "Seconds to wait", schema: { type: "integer", minimum: 1 } } }
      : {}),
    ...(status === 401 ? { "WWW-Authenticate": { description: "Bearer", schema: { type: "string" } } } : {}),
    ...(status === 405
      ? {
          Allow: {
            description: "The methods the path takes",
            required: true,
            schema: { type: "string" },
            example: methodsOfPath(route).join(", "),
          },
        }
      : {}),
    ...(isIdempotent(route) && isKept(status) ? REPLAY_HEADER : {}),
  };
  return {
    description: ERROR_DESCRIPTIONS[status],
    ...(Object.keys(headers).length > 0 ? { headers } : {}),
    content: { "application/json": { schema: ref("Error"), example: errorExample(route, status) } },
  };
}

/** The error statuses of a route: its own, 405 and 500 on every route, 415 on every merchant write with a body. */
function errorStatusesOf(route: MerchantApiRoute): (keyof typeof ERROR_DESCRIPTIONS)[] {
  const takesJson = route.auth === "bearer" && route.body?.mediaType === "application/json";
  return [...route.errors, 405, ...(takesJson ? [415 as const] : []), 500];
}

function answers(route: MerchantApiRoute): JsonObject {
  const out: JsonObject = {};
  const examples = exampleOf(route).answers;
  for (const answer of route.answers) {
    const schema: ResponseSchemaName = answer.schema;
    out[String(answer.status)] = {
      description: answer.description,
      ...(isIdempotent(route) && isKept(answer.status) ? { headers: REPLAY_HEADER } : {}),
      content: {
        [answer.mediaType ?? "application/json"]: {
          schema: ref(schema),
          ...withExample(examples[answer.status]),
        },
      },
    };
  }
  for (const status of errorStatusesOf(route)) out[String(status)] ??= errorAnswer(route, status);
  return out;
}

function parameters(route: MerchantApiRoute): JsonObject[] {
  const out: JsonObject[] = [];
  const { query: examples = {} } = exampleOf(route);
  for (const [name, schema] of Object.entries(route.pathParams?.shape ?? {})) {
    const description = route.path.startsWith("/v1/charges/")
      ? "The charge's id (its order_id)"
      : "The subscription's id";
    out.push({ name, in: "path", required: true, description, schema: jsonSchema(schema, "input") });
  }
  if (route.query && "schema" in route.query) {
    for (const [name, schema] of Object.entries(route.query.schema.shape)) {
      const required = !(schema instanceof z.ZodOptional);
      const { description, ...rest } = jsonSchema(schema, "input");
      out.push({
        name,
        in: "query",
        required,
        ...(description === undefined ? {} : { description }),
        schema: rest,
        ...withExample(examples[name]),
      });
    }
  } else if (route.query) {
    // Free-form: every query parameter is part of the value (the window result passed to verify).
    out.push({
      name: "result",
      in: "query",
      description: "Every parameter of the window result, as the gateway sent it",
      style: "form",
      explode: true,
      schema: ref(route.query.freeForm),
      ...withExample(examples.result),
    });
  }
  if (route.auth === "bearer" && route.method === "POST") {
    out.push({
      name: IDEMPOTENCY_KEY_HEADER,
      in: "header",
      required: false,
      description: "Repeating a POST with the same key and body answers the first result",
      schema: jsonSchema(idempotencyKey, "input"),
    });
  }
  return out;
}

const TAGS = {
  merchant:
    "The merchant's own calls: Authorization: Bearer <merchant API key>; every POST honours Idempotency-Key",
  "gateway callbacks":
    "The gateway's calls to us, each checked its own way (verified with the gateway, signed, or the plan's secret); no API key",
  "local mode": "Served by local mode (npm start) only: never deployed",
} as const;

function tagOf(route: MerchantApiRoute): keyof typeof TAGS {
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
            content: {
              [route.body.mediaType]: {
                schema: ref(route.body.schema),
                ...withExample(exampleOf(route).request),
              },
            },
          },
        }
      : {}),
    responses: answers(route),
    ...(route.localOnly ? { "x-local-only": true } : {}),
  };
}

/** The schemas the routes name (request and answer bodies, a free-form query; Error for every route's 500). */
function componentSchemas(routes: readonly MerchantApiRoute[]): Record<string, JsonObject> {
  const named = new Set<string>(["Error"]);
  for (const route of routes) {
    if (route.body) named.add(route.body.schema);
    if (route.query && "freeForm" in route.query) named.add(route.query.freeForm);
    for (const answer of route.answers) named.add(answer.schema);
  }
  const schemas: Record<string, JsonObject> = {};
  for (const [name, schema] of Object.entries(REQUEST_SCHEMAS))
    if (named.has(name)) schemas[name] = jsonSchema(schema, "input");
  for (const [name, schema] of Object.entries(RESPONSE_SCHEMAS))
    if (named.has(name)) schemas[name] = jsonSchema(schema, "output");
  return schemas;
}

/** Where a deployment serves it: the service stack's ApiUrl output (the HTTP API's $default stage). */
const DEPLOYED_SERVER = {
  url: "https://{apiId}.execute-api.{region}.amazonaws.com",
  description: "A deployment: the service stack's ApiUrl output (npx cdk deploy --outputs-file)",
  variables: {
    apiId: { default: "a1b2c3d4e5", description: "The HTTP API's id, as ApiUrl names it" },
    region: { default: "us-east-1", description: "The region the stacks are deployed to" },
  },
};

/** Where `npm start` serves it. */
const LOCAL_SERVER = {
  url: "http://127.0.0.1:{port}",
  description: "Local mode (npm start)",
  variables: { port: { default: "3000", description: "npm start --port (PORT)" } },
};

export interface OpenApiOptions {
  /** Base URL the API is served at (the API Gateway URL a request came through, or local mode's). */
  readonly serverUrl?: string;
  readonly version?: string;
  /** Local mode's document: the routes only `npm start` serves (POST /local/clock) too. */
  readonly local?: boolean;
}

export function buildOpenApiDocument(options: OpenApiOptions = {}): OpenApiDocument {
  const routes = MERCHANT_API_ROUTES.filter((route) => options.local === true || !route.localOnly);
  const paths: Record<string, Record<string, JsonObject>> = {};
  for (const route of routes) {
    paths[route.path] = { ...paths[route.path], [route.method.toLowerCase()]: operation(route) };
  }
  const tags = [...new Set(routes.map(tagOf))].map((name) => ({ name, description: TAGS[name] }));
  const server =
    options.serverUrl === undefined
      ? options.local === true
        ? LOCAL_SERVER
        : DEPLOYED_SERVER
      : {
          url: options.serverUrl,
          description: options.local === true ? LOCAL_SERVER.description : "This API",
        };
  return {
    openapi: "3.1.0",
    info: {
      title: "Recurring billing — merchant API",
      version: options.version ?? "0.1.0",
      description:
        "Subscriptions billed through the card gateway. Amounts are decimal strings. Errors are " +
        '{"error":{"code","message","field"?}}; bad input never yields a 5xx.',
      license: { name: "Apache License 2.0", identifier: "Apache-2.0" },
    },
    servers: [server],
    security: [{ bearer: [] }],
    tags,
    paths,
    components: {
      securitySchemes: {
        bearer: { type: "http", scheme: "bearer", description: "The merchant API key" },
      },
      schemas: componentSchemas(routes),
    },
  };
}
