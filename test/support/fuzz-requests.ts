import fc from "fast-check";
import {
  formatTransmissionTime,
  signWebhookBody,
  webhookHeaderNames,
} from "../../functions/gateway/webhook-signature";
import type { RawRequest } from "../../local/clients/raw-http";

// fast-check arbitraries of hostile HTTP requests against one route of a JSON API (or a page's form action), built
// around a valid sample request: random JSON, the sample with one field mutated, non-JSON bodies, wrong content types
// and methods, bad credentials and bad path parameters. Each case says whether the server must refuse it.

type Headers = Readonly<Record<string, string>>;
type JsonPath = readonly (string | number)[];

/** One route to fuzz, with a request that the route accepts. */
export interface FuzzTarget {
  readonly name: string;
  readonly method: string;
  /** The route's pattern, `:name` segments filled from `params`. */
  readonly path: string;
  readonly params: Readonly<Record<string, string>>;
  readonly query?: Readonly<Record<string, string>>;
  /** The valid JSON body; undefined when the route reads none. */
  readonly body?: unknown;
  /** A page's action instead: the valid form, sent as application/x-www-form-urlencoded in place of `body`. */
  readonly form?: Readonly<Record<string, string>>;
  /**
   * Whether the route requires a JSON object body (anything unlike the sample is then refused); for a form, every one
   * of its fields (a field missing or empty is refused).
   */
  readonly requiresBody: boolean;
  /** Headers that authenticate the sample ({} for unauthenticated routes). */
  readonly credentials: Headers;
  /** Headers that must be refused (none for unauthenticated routes). */
  readonly badCredentials: readonly Headers[];
  /** The header the route authenticates with, for generated garbage; undefined when it needs none. */
  readonly credentialHeader?: string;
  /** Another merchant's valid credentials, and whether the route must refuse them (the sample is not theirs). */
  readonly otherMerchant?: { readonly credentials: Headers; readonly refused: boolean };
  /** Methods no route serves on this path. */
  readonly wrongMethods: readonly string[];
  /** Optional headers the route reads (Idempotency-Key): sent with garbage values. */
  readonly optionalHeaders?: readonly string[];
  /** The route refuses a body whose content type is not JSON before reading it (the gateway's EC1001). */
  readonly jsonContentTypeOnly?: boolean;
}

export interface FuzzCase {
  /** What was generated, for the failure message (never the huge values themselves). */
  readonly kind: string;
  readonly request: RawRequest;
  /** The server must not answer success. */
  readonly mustRefuse: boolean;
  /** Refused for its content type before any handler reads it (routes with jsonContentTypeOnly). */
  readonly refusedAtTheDoor?: boolean;
}

const JSON_TYPE = { "content-type": "application/json; charset=utf-8" } as const;
const FORM_TYPE = { "content-type": "application/x-www-form-urlencoded" } as const;

function jsonType(value: unknown): string {
  if (value === null) return "null";
  return Array.isArray(value) ? "array" : typeof value;
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

/** Every path to a value inside `value` (the root excluded). */
function pathsOf(value: unknown, prefix: JsonPath = []): JsonPath[] {
  const children: [string | number, unknown][] = Array.isArray(value)
    ? value.map((item, index): [number, unknown] => [index, item])
    : isRecord(value)
      ? Object.entries(value)
      : [];
  return children.flatMap(([key, child]) => [[...prefix, key], ...pathsOf(child, [...prefix, key])]);
}

/** Paths of the objects inside `value`, the root included: where a field can be added. */
function objectPathsOf(value: unknown): JsonPath[] {
  return [[], ...pathsOf(value)].filter((path) => isRecord(valueAt(value, path)));
}

function valueAt(root: unknown, path: JsonPath): unknown {
  let current = root;
  for (const key of path) {
    if (Array.isArray(current) && typeof key === "number") current = current[key];
    else if (isRecord(current) && typeof key === "string") current = current[key];
    else return undefined;
  }
  return current;
}

/** An own enumerable property, even for `__proto__` (plain assignment would set the prototype instead). */
function defineField(
  target: Record<string, unknown> | unknown[],
  key: string | number,
  value: unknown,
): void {
  Object.defineProperty(target, key, { value, enumerable: true, writable: true, configurable: true });
}

type Change =
  | { readonly set: unknown }
  | { readonly remove: true }
  | { readonly add: string; readonly value: unknown };

/** A deep copy of `root` with one change at `path` (the parent of the field for set/remove; the object for add). */
function changed(root: unknown, path: JsonPath, change: Change): unknown {
  const copy: unknown = structuredClone(root);
  if ("add" in change) {
    const target = valueAt(copy, path);
    if (isRecord(target)) defineField(target, change.add, change.value);
    return copy;
  }
  const key = path.at(-1);
  const parent = valueAt(copy, path.slice(0, -1));
  if (key === undefined || (!isRecord(parent) && !Array.isArray(parent))) return copy;
  if ("remove" in change) {
    if (Array.isArray(parent) && typeof key === "number") parent.splice(key, 1);
    else if (isRecord(parent) && typeof key === "string") delete parent[key];
  } else {
    defineField(parent, key, change.set);
  }
  return copy;
}

const describePath = (path: JsonPath) => (path.length === 0 ? "(root)" : path.join("."));

// ───────────────────────────── value arbitraries ─────────────────────────────

/** Characters Node lets through in a header value: a header the client can send. */
const headerSafe = fc.string({
  unit: fc
    .oneof(fc.integer({ min: 0x20, max: 0x7e }), fc.integer({ min: 0x80, max: 0xff }))
    .map((code) => String.fromCharCode(code)),
  maxLength: 60,
});

/** 10–100 KB: a short random unit repeated (generating each character would be slow). */
const hugeString = fc
  .tuple(fc.integer({ min: 10_000, max: 100_000 }), fc.string({ unit: "binary", minLength: 1, maxLength: 4 }))
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));

/** Up to 8 KB of header-safe characters (Node's whole header block is limited to 16 KB). */
const longHeaderValue = fc
  .tuple(
    fc.integer({ min: 256, max: 8_000 }),
    headerSafe.filter((unit) => unit.length > 0),
  )
  .map(([length, unit]) => unit.repeat(Math.ceil(length / unit.length)).slice(0, length));

const unicodeString = fc.oneof(
  fc.string({ unit: "binary", minLength: 1, maxLength: 40 }),
  fc.string({ unit: "grapheme", minLength: 1, maxLength: 20 }),
  fc.constantFrom("\u0000", "\u202e", "\ud800", "𝟙𝟘𝟘", "١٠٠", "１００.００", "e\u0301", "\ufeff100.00"),
);

/** Amount-shaped strings and numbers a parser might take for a number. */
const oddAmount = fc.oneof(
  fc.constantFrom(
    "-1",
    "-0.01",
    "-0",
    "0",
    "0.00",
    "NaN",
    "Infinity",
    "-Infinity",
    "1e3",
    "1e-7",
    "0x10",
    "1,000.00",
    " 1.00",
    "1.00 ",
    "1.",
    ".5",
    "+1",
    "99999999999999999999999999999999.99",
    "1.0000000000000000000001",
  ),
  fc.double().map(String),
  fc.double({ noNaN: true }),
  fc.integer({ min: -1_000_000, max: 1_000_000 }),
);

const specialKey = fc.constantFrom("__proto__", "constructor", "prototype", "toString", "hasOwnProperty");
const anyKey = fc.oneof(specialKey, fc.string({ maxLength: 20 }));

/** Every kind of JSON value, with prototype keys among the object keys. */
const jsonValue = fc.jsonValue({ maxDepth: 3 });
const pollutingObject = fc
  .tuple(specialKey, jsonValue)
  .map(([key, value]) =>
    JSON.parse(`{${JSON.stringify(key)}:${JSON.stringify(value ?? null)},"polluted":true}`),
  );

/** A value of another JSON type than `original`. */
function wrongType(original: unknown): fc.Arbitrary<unknown> {
  return fc
    .oneof(
      fc.integer(),
      fc.double({ noNaN: true }),
      fc.boolean(),
      fc.constant([]),
      fc.array(jsonValue, { maxLength: 3 }),
      fc.constant({}),
      fc.dictionary(fc.string({ maxLength: 8 }), jsonValue, { maxKeys: 3 }),
      fc.string({ maxLength: 10 }),
    )
    .filter((value) => jsonType(value) !== jsonType(original));
}

// ───────────────────────────── bodies ─────────────────────────────

export interface Body {
  readonly kind: string;
  readonly text: string;
  /** The route refuses this body whatever else the request carries. */
  readonly refused: boolean;
}

const stringify = (value: unknown) => JSON.stringify(value) ?? "";

/** The sample with one field changed: wrong type, huge, unicode, empty, null, odd amount, added or removed. */
function mutatedValue(sample: unknown): fc.Arbitrary<{ kind: string; value: unknown; refused: boolean }> {
  const paths = pathsOf(sample);
  const objects = objectPathsOf(sample);
  const at = (path: JsonPath, label: string, value: fc.Arbitrary<unknown>, refused = false) =>
    value.map((set) => ({
      kind: `${label}@${describePath(path)}`,
      value: changed(sample, path, { set }),
      refused,
    }));
  const options: fc.Arbitrary<{ kind: string; value: unknown; refused: boolean }>[] = [
    fc
      .tuple(fc.constantFrom(...objects), anyKey, fc.oneof(jsonValue, pollutingObject))
      .map(([path, add, value]) => ({
        kind: `extra ${JSON.stringify(add)}@${describePath(path)}`,
        value: changed(sample, path, { add, value }),
        refused: false,
      })),
  ];
  if (paths.length > 0) {
    const path = fc.constantFrom(...paths);
    options.push(
      // Every wire value has one type: another one is always refused, and so is null (nothing is nullable).
      path.chain((p) => at(p, "wrong type", wrongType(valueAt(sample, p)), true)),
      path.chain((p) => at(p, "null", fc.constant(null), true)),
      path.chain((p) => at(p, "huge", hugeString)),
      path.chain((p) => at(p, "unicode", unicodeString)),
      path.chain((p) => at(p, "empty", fc.constant(""))),
      path.chain((p) => at(p, "odd amount", oddAmount)),
      path.chain((p) => at(p, "polluting", pollutingObject)),
      path.map((p) => ({
        kind: `missing@${describePath(p)}`,
        value: changed(sample, p, { remove: true }),
        refused: false,
      })),
    );
  }
  return fc.oneof(...options);
}

function isJson(text: string): boolean {
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

/** Text that is not JSON: garbage, truncated JSON, near-JSON, form and XML bodies, raw bytes. */
function nonJsonText(sampleText: string): fc.Arbitrary<string> {
  return fc
    .oneof(
      fc.string({ maxLength: 200 }),
      fc.string({ unit: "binary", maxLength: 200 }),
      fc.integer({ min: 0, max: Math.max(0, sampleText.length - 1) }).map((end) => sampleText.slice(0, end)),
      fc.constantFrom(
        "",
        "   ",
        "{",
        "{'a':1}",
        '{"a":1,}',
        '{"a":1}garbage',
        "[1,]",
        "undefined",
        "NaN",
        "<xml/>",
        "a=1&b=2",
        "\u0000",
        '{"a":"\\ud800"',
        "\ufeff{}",
      ),
      fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString("latin1")),
    )
    .filter((text) => !isJson(text));
}

/**
 * Hostile bodies around a sample: random JSON (prototype keys included), arbitrary values, non-JSON text, and the
 * sample with one field mutated. `refused` says whether a receiver that requires the sample's shape must refuse it.
 */
export function hostileBodies(sample: unknown, requiresBody: boolean): fc.Arbitrary<Body> {
  const sampleText = sample === undefined ? "" : stringify(sample);
  const options: fc.Arbitrary<Body>[] = [
    fc.oneof(jsonValue, pollutingObject).map((value) => ({
      kind: `random JSON ${jsonType(value)}`,
      text: stringify(value),
      refused: requiresBody,
    })),
    fc
      .anything({
        maxDepth: 2,
        withNullPrototype: true,
        withBoxedValues: true,
        withDate: true,
        withMap: true,
      })
      .map((value) => ({ kind: "anything", text: stringify(value), refused: requiresBody })),
    nonJsonText(sampleText).map((text) => ({ kind: "non-JSON", text, refused: requiresBody })),
  ];
  if (sample !== undefined) {
    options.push(
      mutatedValue(sample).map(({ kind, value, refused }) => ({
        kind: `mutated ${kind}`,
        text: stringify(value),
        refused: refused && requiresBody,
      })),
    );
  }
  return fc.oneof(...options);
}

type FormFields = readonly (readonly [string, string])[];
const encodeForm = (fields: FormFields) =>
  new URLSearchParams(fields.map(([name, value]): [string, string] => [name, value])).toString();

/**
 * Hostile bodies of a form action: JSON and random text (no form at all), and the sample form with one field missing,
 * empty, changed (huge, unicode, amount-like), repeated with another value, or one field added (prototype names
 * included). `refused` as in hostileBodies: whether a receiver requiring every field of the sample must refuse it.
 */
export function hostileForms(
  sample: Readonly<Record<string, string>>,
  requiresBody: boolean,
): fc.Arbitrary<Body> {
  const fields = Object.entries(sample);
  const field = fc.constantFrom(...Object.keys(sample));
  const withValue = (name: string, value: string) =>
    encodeForm(fields.map(([key, original]): [string, string] => [key, key === name ? value : original]));
  const appended = (name: string, value: string) => `${encodeForm(fields)}&${encodeForm([[name, value]])}`;
  return fc.oneof(
    fc.oneof(jsonValue, pollutingObject).map((value) => ({
      kind: `JSON ${jsonType(value)}`,
      text: stringify(value),
      refused: requiresBody,
    })),
    fc
      .oneof(
        fc.string({ maxLength: 200 }),
        fc.uint8Array({ maxLength: 200 }).map((bytes) => Buffer.from(bytes).toString("latin1")),
      )
      .map((text) => ({ kind: "random text", text, refused: requiresBody })),
    field.map((name) => ({
      kind: `missing ${name}`,
      text: encodeForm(fields.filter(([key]) => key !== name)),
      refused: requiresBody,
    })),
    field.map((name) => ({ kind: `empty ${name}`, text: withValue(name, ""), refused: requiresBody })),
    fc
      .tuple(field, fc.oneof(hugeString, unicodeString, oddAmount.map(String)))
      .map(([name, value]) => ({ kind: `changed ${name}`, text: withValue(name, value), refused: false })),
    fc
      .tuple(field, unicodeString)
      .map(([name, value]) => ({ kind: `repeated ${name}`, text: appended(name, value), refused: false })),
    fc.tuple(anyKey, unicodeString).map(([name, value]) => ({
      kind: `extra ${JSON.stringify(name)}`,
      text: appended(name, value),
      refused: false,
    })),
  );
}

// ───────────────────────────── request parts ─────────────────────────────

/** A path parameter value sent verbatim (dot segments, broken percent-encoding) or percent-encoded. */
interface PathValue {
  readonly label: string;
  readonly raw: string;
  /** What the server decodes it to, when it decodes. */
  readonly decoded: string;
}

/** Every UTF-8 byte percent-encoded (encodeURIComponent throws on a lone surrogate; this sends U+FFFD). */
const percentEncoded = (value: string) => Buffer.from(value, "utf8").toString("hex").replace(/../g, "%$&");
const encoded = (label: string) => (value: string) => ({ label, raw: percentEncoded(value), decoded: value });

function badParamValue(original: string): fc.Arbitrary<PathValue> {
  return fc
    .oneof(
      fc.constantFrom("..", ".", "%2e%2e", "%2E", "%", "%zz", "%00", "%E0%A4%A", "").map((raw) => ({
        label: `raw ${JSON.stringify(raw)}`,
        raw,
        decoded: raw,
      })),
      unicodeString.map(encoded("unicode")),
      fc
        .tuple(fc.integer({ min: 25, max: 8_000 }), fc.string({ minLength: 1, maxLength: 3 }))
        .map(([length, unit]) => unit.repeat(length).slice(0, length))
        .map(encoded("too long")),
      fc
        .constantFrom(`${original}X`, original.slice(0, -1), original.toLowerCase(), ` ${original}`)
        .map(encoded("near")),
    )
    .filter((value) => value.decoded !== original);
}

export function concretePath(pattern: string, params: Readonly<Record<string, string>>): string {
  return pattern.replace(/:(\w+)/g, (_match, name: string) => encodeURIComponent(params[name] ?? ""));
}

function withQuery(path: string, query: Readonly<Record<string, unknown>> | undefined): string {
  if (query === undefined) return path;
  const entries = Object.entries(query).map(([key, value]): [string, string] => [
    key,
    typeof value === "string" ? value : stringify(value),
  ]);
  return `${path}?${new URLSearchParams(entries)}`;
}

interface Target {
  readonly kind: string;
  readonly path: string;
  readonly refused: boolean;
}

/** A bad path parameter (always refused), or noise around a parameterless path that may still resolve. */
function paths(target: FuzzTarget): fc.Arbitrary<Target> {
  const names = Object.keys(target.params);
  if (names.length > 0) {
    return fc.constantFrom(...names).chain((name) =>
      badParamValue(target.params[name] ?? "").map((value) => ({
        kind: `path ${name} ${value.label}`,
        path: target.path.replace(/:(\w+)/g, (_match, param: string) =>
          param === name ? value.raw : encodeURIComponent(target.params[param] ?? ""),
        ),
        refused: true,
      })),
    );
  }
  const path = target.path;
  return fc
    .constantFrom(
      `${path}/`,
      path.toUpperCase(),
      path.replace("/", "//"),
      `${path}/..`,
      `${path}/%2e%2e`,
      `/.${path}`,
      `${path}/./.`,
      `${path};x=1`,
    )
    .map((noise) => ({ kind: `path noise ${noise}`, path: noise, refused: false }));
}

function queries(target: FuzzTarget): fc.Arbitrary<Target> {
  const path = concretePath(target.path, target.params);
  return mutatedValue(target.query ?? {}).map(({ kind, value }) => ({
    kind: `query ${kind}`,
    path: withQuery(path, isRecord(value) ? value : {}),
    refused: false,
  }));
}

const CONTENT_TYPES = [
  "text/plain",
  "application/x-www-form-urlencoded",
  "multipart/form-data; boundary=x",
  "application/xml",
  "application/json; charset=utf-16",
  "application/octet-stream",
  "",
];

interface Auth {
  readonly kind: string;
  readonly headers: Headers;
  readonly refused: boolean;
}

function auths(target: FuzzTarget): fc.Arbitrary<Auth> {
  const protectedRoute = target.credentialHeader !== undefined;
  const options: fc.Arbitrary<Auth>[] = [
    fc.constant({ kind: "no credentials", headers: {}, refused: protectedRoute }),
    fc
      .tuple(
        fc.constantFrom(target.credentialHeader ?? "authorization", "authorization", "apikey"),
        headerSafe,
      )
      .map(([name, value]) => ({
        kind: `garbage ${name}`,
        headers: { [name]: value },
        refused: protectedRoute,
      })),
    fc
      .tuple(fc.constantFrom("Basic ", "Bearer ", "basic ", "Digest "), fc.string({ maxLength: 40 }))
      .map(([scheme, secret]) => ({
        kind: `${scheme.trim()} of random bytes`,
        headers: { authorization: `${scheme}${Buffer.from(secret).toString("base64")}` },
        refused: protectedRoute,
      })),
  ];
  if (target.badCredentials.length > 0) {
    options.push(
      fc
        .constantFrom(...target.badCredentials)
        .map((headers) => ({ kind: "wrong credentials", headers, refused: true })),
    );
  }
  const other = target.otherMerchant;
  if (other) {
    options.push(fc.constant({ kind: "other merchant", headers: other.credentials, refused: other.refused }));
  }
  return fc.oneof(...options);
}

// ───────────────────────────── cases ─────────────────────────────

const isJsonType = (type: string) => /^application\/json\s*(?:;|$)/i.test(type);

/** Whether a body sent with this content type must be refused, and whether before any handler reads it. */
function doorOf(target: FuzzTarget, type: string, body: string, refusedAnyway: boolean) {
  const atTheDoor = target.jsonContentTypeOnly === true && body !== "" && !isJsonType(type);
  return { mustRefuse: refusedAnyway || atTheDoor, refusedAtTheDoor: atTheDoor };
}

/** Hostile requests against one route; anything but the sample's own method, path and credentials. */
export function fuzzCases(target: FuzzTarget): fc.Arbitrary<FuzzCase> {
  const path = withQuery(concretePath(target.path, target.params), target.query);
  const { form } = target;
  const sampleText =
    form !== undefined
      ? encodeForm(Object.entries(form))
      : target.body === undefined
        ? ""
        : stringify(target.body);
  const sampleType = form === undefined ? JSON_TYPE : FORM_TYPE;
  const request = (parts: Partial<RawRequest> & { headers?: Headers }): RawRequest => ({
    method: target.method,
    path,
    body: sampleText,
    ...parts,
    headers: { ...sampleType, ...target.credentials, ...parts.headers },
  });
  const bodies =
    form === undefined
      ? hostileBodies(target.body, target.requiresBody)
      : hostileForms(form, target.requiresBody);
  const options: fc.Arbitrary<FuzzCase>[] = [
    bodies.map((body) => ({
      kind: body.kind,
      request: request({ body: body.text }),
      mustRefuse: body.refused,
    })),
    paths(target).map((t) => ({ kind: t.kind, request: request({ path: t.path }), mustRefuse: t.refused })),
    fc.constantFrom(...CONTENT_TYPES).map((type) => ({
      kind: `content-type ${JSON.stringify(type)}`,
      request: request({ headers: { "content-type": type } }),
      ...doorOf(target, type, sampleText, false),
    })),
    fc.constantFrom(...CONTENT_TYPES).map((type) => {
      const body = new URLSearchParams({ body: sampleText }).toString();
      return {
        kind: `form body as ${JSON.stringify(type)}`,
        request: request({ headers: { "content-type": type }, body }),
        ...doorOf(target, type, body, target.requiresBody),
      };
    }),
    auths(target).map((auth) => ({
      kind: auth.kind,
      // Credentials replaced, not added to: the sample's own must not ride along.
      request: { method: target.method, path, body: sampleText, headers: { ...sampleType, ...auth.headers } },
      mustRefuse: auth.refused,
    })),
  ];
  if (target.wrongMethods.length > 0) {
    options.push(
      fc.constantFrom(...target.wrongMethods).map((method) => ({
        kind: `method ${method}`,
        request: request({ method }),
        mustRefuse: true,
      })),
    );
  }
  const optionalHeaders = target.optionalHeaders ?? [];
  if (optionalHeaders.length > 0) {
    options.push(
      fc
        .tuple(fc.constantFrom(...optionalHeaders), fc.oneof(headerSafe, longHeaderValue))
        .map(([name, value]) => ({
          kind: `header ${name} of ${value.length} characters`,
          request: request({ headers: { [name]: value } }),
          mustRefuse: false,
        })),
    );
  }
  if (target.query !== undefined) {
    options.push(
      queries(target).map((t) => ({ kind: t.kind, request: request({ path: t.path }), mustRefuse: false })),
    );
  }
  // fast-check prints counterexamples with this (a case can carry 100 KB of body).
  return fc.oneof(...options).map((c) => ({ ...c, [fc.toStringMethod]: () => describeCase(c) }));
}

/** A one-line account of a case, long values cut. */
export function describeCase(c: FuzzCase): string {
  const body = String(c.request.body ?? "");
  const path = c.request.path;
  const cut = (text: string) =>
    JSON.stringify(text.slice(0, 120)) + (text.length > 120 ? `…(${text.length} chars)` : "");
  return `${c.kind}: ${c.request.method} ${cut(path)} body ${cut(body)} headers ${JSON.stringify(c.request.headers)}`;
}

// ───────────────────────────── signed webhooks ─────────────────────────────

/** A receiver of signed webhooks (HMAC over the raw body, a transmission time within a tolerance). */
export interface SignedWebhookTarget {
  readonly path: string;
  /** A body the receiver accepts; it has been delivered once, so a replay of it is a duplicate. */
  readonly sample: unknown;
  readonly secret: string;
  readonly headerPrefix?: string;
  readonly toleranceSeconds: number;
  /** The receiver's clock. */
  readonly now: () => Date;
}

/**
 * Deliveries to a signed webhook receiver: replays of the sample with a fresh time (acknowledged as duplicates),
 * stale or malformed transmission times, wrong, truncated or foreign signatures (all refused), and hostile bodies
 * correctly signed (acknowledged: the signature is the only credential; whether the body makes sense is the
 * processor's business). Tampered bodies are fuzzCases' mutated bodies sent with the sample's signature.
 */
export function signedWebhookCases(target: SignedWebhookTarget): fc.Arbitrary<FuzzCase> {
  const names = webhookHeaderNames(target.headerPrefix);
  const sampleText = stringify(target.sample);
  const signature = signWebhookBody(sampleText, target.secret);
  const tolerance = target.toleranceSeconds;
  const at = (offsetSeconds: number, zoneMinutes = 0) =>
    formatTransmissionTime(new Date(target.now().getTime() + offsetSeconds * 1000), zoneMinutes);
  const delivery = (kind: string, body: string, headers: Headers, mustRefuse: boolean): FuzzCase => ({
    kind,
    request: { method: "POST", path: target.path, body, headers: { ...JSON_TYPE, ...headers } },
    mustRefuse,
  });
  const fresh = fc.tuple(
    fc.integer({ min: -(tolerance - 5), max: tolerance - 5 }),
    fc.integer({ min: -18 * 60, max: 18 * 60 }),
  );
  const offsetOutside = fc.oneof(
    fc.integer({ min: tolerance + 2, max: 400 * 86_400 }),
    fc.integer({ min: -400 * 86_400, max: -(tolerance + 2) }),
  );
  const cases: fc.Arbitrary<FuzzCase>[] = [
    fresh.map(([offset, zone]) =>
      delivery(
        `replay at ${offset} s`,
        sampleText,
        { [names.signature]: signature, [names.transmissionTime]: at(offset, zone) },
        false,
      ),
    ),
    offsetOutside.map((offset) =>
      delivery(
        `stale by ${offset} s`,
        sampleText,
        { [names.signature]: signature, [names.transmissionTime]: at(offset) },
        true,
      ),
    ),
    fc
      .oneof(
        headerSafe,
        fc.constantFrom(
          at(0).replace("T", " "),
          at(0).replace(/\.\d{3}/, ""),
          at(0).replace("Z", "+19:00"),
          "2026-02-30T00:00:00.000Z",
          String(target.now().getTime()),
          target.now().toUTCString(),
          "",
        ),
      )
      .map((time) =>
        delivery(
          `transmission time ${JSON.stringify(time.slice(0, 40))}`,
          sampleText,
          { [names.signature]: signature, [names.transmissionTime]: time },
          true,
        ),
      ),
    fc
      .oneof(
        headerSafe,
        fc.constantFrom(
          signWebhookBody(sampleText, `${target.secret}x`),
          signWebhookBody(`${sampleText} `, target.secret),
          signature.slice(0, -2),
          signature.replace(/=+$/, ""),
          Buffer.from(signature, "base64").toString("hex"),
          `sha256=${signature}`,
          `${signature},${signature}`,
          "",
        ),
      )
      .map((value) =>
        delivery(
          "bad signature",
          sampleText,
          { [names.signature]: value, [names.transmissionTime]: at(0) },
          true,
        ),
      ),
    fc
      .constantFrom(names.signature, names.transmissionTime)
      .map((missing) =>
        delivery(
          `without ${missing}`,
          sampleText,
          Object.fromEntries(
            Object.entries({ [names.signature]: signature, [names.transmissionTime]: at(0) }).filter(
              ([name]) => name !== missing,
            ),
          ),
          true,
        ),
      ),
    fc.tuple(hostileBodies(target.sample, false), fresh).map(([body, [offset, zone]]) =>
      delivery(
        `signed ${body.kind}`,
        body.text,
        {
          [names.signature]: signWebhookBody(body.text, target.secret),
          [names.transmissionTime]: at(offset, zone),
        },
        false,
      ),
    ),
  ];
  return fc.oneof(...cases).map((c) => ({ ...c, [fc.toStringMethod]: () => describeCase(c) }));
}
