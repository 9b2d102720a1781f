import "../../support/log-everything";
import { isDeepStrictEqual } from "node:util";
import fc from "fast-check";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { webhookAck } from "../../../functions/api/gateway-callback-schemas";
import { MERCHANT_API_ROUTES } from "../../../functions/api/merchant-api-routes";
import { errorBody } from "../../../functions/api/merchant-api-views";
import { BILLING_FUNCTIONS } from "../../../functions/function-table";
import {
  formatTransmissionTime,
  signWebhookBody,
  webhookHeaderNames,
} from "../../../functions/gateway/webhook-signature";
import {
  CHECKOUT_PAGE_ROUTES,
  DOCUMENT_PAGE_ROUTES,
  type PageRoute,
  PORTAL_PAGE_ROUTES,
} from "../../../functions/pages/shared/page-routes";
import { leakSecretsOf, outputSources, scanForLeaks } from "../../../local/audit/leak-scan";
import { keepAliveAgent, type RawRequest, type RawResponse, sendRaw } from "../../../local/clients/raw-http";
import type { LocalStack } from "../../../local/stack/local-stack";
import { TRY_IT_PAGE_ROUTES, TRY_IT_TEST_CARDS } from "../../../local/stack/try-it-page";
import { TEST_MERCHANT } from "../../../sandbox/state/merchant-config";
import {
  concretePath,
  describeCase,
  type FuzzCase,
  type FuzzTarget,
  fuzzCases,
  signedWebhookCases,
} from "../../support/fuzz-requests";
import { captureFileOutput } from "../../support/handler-env";
import { type StackState, settleWork, stackState } from "../../support/stack-state";

// Every route of the local API (the merchant API behind its authorizer, the gateway callbacks, the OpenAPI document,
// our pages, POST /local/clock and the try-it page) gets FUZZ_RUNS hostile requests (default 200, seed FUZZ_SEED)
// over real HTTP. Each answer must be below 500 and in the route's documented shape; a request a route must refuse is refused; a refused
// request changes nothing (table, queues, sandbox ledger); the gateway callbacks, whose hostile input may be
// acknowledged, change nothing either once the intake queue is processed. Afterwards the process still answers and
// no log line or answer carries card data or a secret.

const RUNS = Number(process.env.FUZZ_RUNS ?? 200);
/** ~25 ms per request here; the margin keeps a busy machine (or FUZZ_RUNS=10000, ~4 min per route) in time. */
const ROUTE_TIMEOUT_MS = Math.max(300_000, RUNS * 150);
const SEED = Number(process.env.FUZZ_SEED ?? 20_260_310);
const START = new Date("2027-03-01T10:00:00.000Z");
const API_KEY = "mk_fuzz_4f0c2a9e7b1d3c5a8e6f0b2d4a6c8e1f";
const CVC = "846";
const CARD = "4111111111111111";
const DECLINED_CARD = "4000000000000002";
const METHODS = ["GET", "POST", "PUT", "DELETE", "PATCH", "OPTIONS", "TRACE", "PURGE", "FUZZ"];
const WEBHOOK_TOLERANCE_SECONDS = 300;

const bearer = (key: string) => ({ authorization: `Bearer ${key}` });
const customer = { name: "Fuzz Customer", email: "fuzz@example.com" };
const plan = { amount: "19.90", currency: "USD", interval_months: 1 };
const signupBody = { customer, plan, card: { number: CARD, expiry: "203012", cvc: CVC } };

/** API Gateway's own answers (unparseable HTTP, too large): not the merchant API's error body. */
const GATEWAY_ANSWERS: Readonly<Record<number, string>> = {
  400: "Bad Request",
  413: "Request Entity Too Large",
  431: "Request Header Fields Too Large",
};
const vendorRefusal = z.strictObject({ rescode: z.literal("EC00"), resmsg: z.string() });
const signatureFail = z.strictObject({ rescode: z.literal("XXXX"), resmsg: z.literal("signature_fail") });
const partnerAck = z.strictObject({ code: z.literal("CMN_0000"), message: z.literal("Success") });
const partnerRefusal = z.strictObject({ code: z.literal("INVALID_EVENT"), message: z.string() });

/**
 * The answer a route may give to any request, by status class (a gateway 404/413 is allowed everywhere): JSON, or the
 * gateway's form-encoded text (status_url).
 */
interface Documented {
  readonly ok: z.ZodType;
  readonly refused: z.ZodType;
  readonly text?: true;
}
/** status_url's text answer with the given rescode, read as its fields. */
const statusText = (rescode: string) =>
  z
    .string()
    .transform((text) => Object.fromEntries(new URLSearchParams(text)))
    .pipe(z.strictObject({ rescode: z.literal(rescode), resmsg: z.string() }));
const MERCHANT: Documented = { ok: z.unknown(), refused: errorBody };
/** Our pages answer HTML or a redirect; any JSON answer on their routes is API Gateway's own. */
const API_GATEWAY_ONLY: Documented = { ok: z.never(), refused: z.never() };
const WEBHOOK_ANSWERS: Readonly<Record<string, Documented>> = {
  "/webhooks/status": { ok: statusText("0000"), refused: statusText("EC00"), text: true },
  "/webhooks/gateway": { ok: webhookAck, refused: signatureFail },
  "/webhooks/partner": { ok: partnerAck, refused: partnerRefusal },
  "/webhooks/recurring": { ok: webhookAck, refused: vendorRefusal },
  "/openapi.json": { ok: z.looseObject({ openapi: z.literal("3.1.0") }), refused: z.never() },
};

/** merchant: the merchant API; callback: the gateway's calls and the OpenAPI document; page: our pages and local mode's. */
type Kind = "merchant" | "callback" | "page";

/**
 * What a route's requests may change. "on success": a refused request changes nothing. "never": no request of the
 * fuzz changes anything, accepted or not — reads, a repeated cancel, and callbacks (acknowledged, then processed
 * from the intake queue without effect: nothing hostile verifies with the gateway).
 */
type Changes = "on success" | "never";

interface Sample {
  readonly kind: Kind;
  readonly changes: Changes;
  readonly target: FuzzTarget;
  /** Extra generated cases of this route (signed webhook attacks). */
  readonly extra?: fc.Arbitrary<FuzzCase>;
  /**
   * The sample's body as a form (a page's action), instead of the target's JSON, when only the sample sends it (it
   * carries a form token no fuzzed request has); a target's own form is the sample's too.
   */
  readonly form?: Readonly<Record<string, string>>;
}

/** `/v1/subscriptions/{id}` → `/v1/subscriptions/:id` (fuzz-requests' path patterns). */
const colonPath = (path: string) => path.replace(/\{(\w+)\}/g, ":$1");

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return undefined;
  }
}

let local: LocalStack;
const agent = keepAliveAgent();
const samples = new Map<string, Sample>();
const stats: string[] = [];
const answers: string[] = [];
const output = captureFileOutput();
/** Failures the local stack reported (a handler that threw, a batch that failed): a crash, never expected. */
const failures: string[] = [];

async function send(request: RawRequest): Promise<RawResponse> {
  const response = await sendRaw(local.url, agent, request);
  answers.push(response.text);
  return response;
}

/** A setup call that must succeed; its JSON answer. */
async function setup(method: string, path: string, body: unknown, headers = bearer(API_KEY)) {
  const response = await send({
    method,
    path,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? "" : JSON.stringify(body),
  });
  if (response.status >= 300) throw new Error(`setup ${method} ${path}: ${response.status} ${response.text}`);
  return parseJson(response.text);
}

/** Every route the local HTTP API serves: the function table's HTTP triggers, the local-only routes and pages. */
function servedRoutes(): string[] {
  const deployed = BILLING_FUNCTIONS.flatMap(({ trigger }): string[] =>
    trigger.kind === "http" ? trigger.routes.map((route) => `${route.method} ${route.path}`) : [],
  );
  const localOnly = [
    ...MERCHANT_API_ROUTES.filter((route) => route.localOnly),
    ...Object.values(TRY_IT_PAGE_ROUTES),
  ];
  return [...deployed, ...localOnly.map((route) => `${route.method} ${route.path}`)].sort();
}

/** Methods no route serves on a concrete path. */
function wrongMethods(path: string): string[] {
  const served = servedRoutes()
    .map((route) => route.split(" "))
    .filter(([, template = ""]) => new RegExp(`^${template.replace(/\{\w+\}/g, "[^/]+")}$`).test(path))
    .map(([method = ""]) => method);
  return METHODS.filter((method) => !served.includes(method));
}

const merchantCredentials = {
  credentials: bearer(API_KEY),
  credentialHeader: "authorization",
  badCredentials: [
    bearer("mk_fuzz_wrong_0000000000000000000000"),
    bearer(`${API_KEY}x`),
    bearer(API_KEY.slice(0, -1)),
    bearer(API_KEY.toUpperCase()),
    { authorization: `Basic ${Buffer.from(`${API_KEY}:`).toString("base64")}` },
    { authorization: API_KEY },
    { authorization: `Bearer ${API_KEY} ${API_KEY}` },
    { "x-api-key": API_KEY },
  ],
} as const;

function merchantTarget(
  method: string,
  path: string,
  options: {
    params?: Record<string, string>;
    query?: Record<string, string>;
    body?: unknown;
    requiresBody?: boolean;
  },
): FuzzTarget {
  const params = options.params ?? {};
  return {
    name: `${method} ${path}`,
    method,
    path: colonPath(path),
    params,
    ...(options.query === undefined ? {} : { query: options.query }),
    body: options.body,
    requiresBody: options.requiresBody ?? false,
    ...merchantCredentials,
    wrongMethods: wrongMethods(concretePath(colonPath(path), params)),
    optionalHeaders: method === "POST" ? ["idempotency-key"] : [],
  };
}

function callbackTarget(
  method: string,
  path: string,
  options: {
    query?: Record<string, string>;
    body?: unknown;
    requiresBody?: boolean;
    credentials?: Record<string, string>;
  },
): FuzzTarget {
  return {
    name: `${method} ${path}`,
    method,
    path,
    params: {},
    query: options.query,
    body: options.body,
    requiresBody: options.requiresBody ?? false,
    credentials: options.credentials ?? {},
    credentialHeader: options.credentials === undefined ? undefined : webhookHeaderNames().signature,
    badCredentials: [],
    wrongMethods: wrongMethods(path),
  };
}

function add(kind: Kind, target: FuzzTarget, extra?: fc.Arbitrary<FuzzCase>) {
  const changes = kind === "merchant" && target.method === "POST" ? "on success" : "never";
  samples.set(target.name, { kind, changes, target, extra });
}

/** A page's route, as the fuzz sends it: no credential of the merchant API's (a page has none of those). */
function pageTarget({ method, path }: PageRoute, params: Record<string, string> = {}): FuzzTarget {
  return {
    name: `${method} ${path}`,
    method,
    path: colonPath(path),
    params,
    requiresBody: false,
    credentials: {},
    badCredentials: [],
    wrongMethods: wrongMethods(concretePath(colonPath(path), params)),
  };
}

/**
 * A page of ours, opened by the signed link in its path (the link is its only credential: any other is refused). No
 * fuzzed request can act: an action needs the page's form token, which only the sample carries.
 */
function addPage(route: PageRoute, params: Record<string, string>, form?: Record<string, string>) {
  const target = pageTarget(route, params);
  samples.set(target.name, { kind: "page", changes: "never", target, form });
}

/** The browser's Fetch metadata of a form posted by our own page, and by any other. */
const SAME_ORIGIN = { "sec-fetch-site": "same-origin" };
const OTHER_SITES = ["cross-site", "same-site", "none"].map((site) => ({ "sec-fetch-site": site }));

/**
 * The try-it page of local mode, which anyone may open. Its action starts a checkout through the merchant API: its
 * form is fuzzed field by field (each is required), a form another site posted is refused like a wrong credential, a
 * refused request changes nothing and an accepted one leads to the new checkout's page.
 */
function addTryItPages(query: Record<string, string>, form: Record<string, string>) {
  const page = { ...pageTarget(TRY_IT_PAGE_ROUTES.page), query };
  samples.set(page.name, { kind: "page", changes: "never", target: page });
  const start: FuzzTarget = {
    ...pageTarget(TRY_IT_PAGE_ROUTES.start),
    form,
    requiresBody: true,
    credentials: SAME_ORIGIN,
    badCredentials: OTHER_SITES,
  };
  samples.set(start.name, { kind: "page", changes: "on success", target: start });
}

/** The sample request of a route, exactly. */
function sampleRequest({ target, form = target.form }: Sample): RawRequest {
  const path = concretePath(target.path, target.params);
  return {
    method: target.method,
    path: target.query === undefined ? path : `${path}?${new URLSearchParams(target.query)}`,
    headers: {
      "content-type": form === undefined ? "application/json" : "application/x-www-form-urlencoded",
      ...(form === undefined ? {} : SAME_ORIGIN),
      ...target.credentials,
    },
    body:
      form !== undefined
        ? new URLSearchParams(form).toString()
        : target.body === undefined
          ? ""
          : JSON.stringify(target.body),
  };
}

/** Why a page's answer is not one of our pages (or a redirect to one), or undefined; other answers are API Gateway's. */
function pageBreach(response: RawResponse): string | undefined {
  if (response.status === 303) {
    // To one of our pages, to the gateway's receipt page of a charge the link reaches, or to a document's file.
    const location = String(response.headers.location);
    const ours = [
      `${local.url}/pay/`,
      `${local.url}/portal/`,
      `${local.sandboxUrl}/`,
      `${local.stack.s3.endpoint}/${local.stack.s3.bucket}/`,
    ];
    return ours.some((prefix) => location.startsWith(prefix)) ? undefined : "redirect off our pages";
  }
  if (!/^text\/html/.test(String(response.headers["content-type"]))) return "not a page";
  if (!/^<!doctype html>\n<html lang="(en|ko)">/.test(response.text)) return "not one of our pages";
  return /\bat .+\.[jt]s:\d+/.test(response.text) ? "a stack trace on the page" : undefined;
}

/** Why an answer breaks the route's contract, or undefined. */
function contractBreach(sample: Sample, c: FuzzCase, response: RawResponse): string | undefined {
  const { status } = response;
  if (status >= 500 || status < 200) return "status outside 200–499";
  if (c.mustRefuse && status < 400) return "must be refused";
  const isHtml = /^text\/html/.test(String(response.headers["content-type"]));
  if (sample.kind === "page" && (status === 303 || isHtml)) return pageBreach(response);
  const documented =
    sample.kind === "merchant"
      ? MERCHANT
      : sample.kind === "page"
        ? API_GATEWAY_ONLY
        : (WEBHOOK_ANSWERS[sample.target.path] ?? MERCHANT);
  if (documented.text && /^text\/plain/.test(String(response.headers["content-type"]))) {
    const schema = status < 400 ? documented.ok : documented.refused;
    return schema.safeParse(response.text).success ? undefined : "text answer not in the documented shape";
  }
  if (!/^application\/json/.test(String(response.headers["content-type"]))) return "not JSON";
  const json = parseJson(response.text);
  if (json === undefined) return "body is not JSON";
  const gatewayMessage = GATEWAY_ANSWERS[status];
  if (gatewayMessage !== undefined && isDeepStrictEqual(json, { message: gatewayMessage })) return undefined;
  // What no route takes (another path, another method) the $default route answers in the merchant API's envelope.
  if ((status === 404 || status === 405) && errorBody.safeParse(json).success) return undefined;
  const schema = status < 400 ? documented.ok : documented.refused;
  return schema.safeParse(json).success ? undefined : "answer not in the documented shape";
}

/** Table items the gateway webhook receiver writes for a valid delivery (its de-duplication record). */
const isDedupItem = (item: string) => item.startsWith("table item DEDUP#");
const withoutDedup = (state: StackState) => ({
  ...state,
  items: state.items.filter((item) => !isDedupItem(item)),
});

beforeAll(async () => {
  const { LocalStack } = await import("../../../local/stack/local-stack");
  local = await LocalStack.start({
    port: 0,
    sandboxPort: 0,
    realTime: false,
    start: START,
    apiKey: API_KEY,
    onError: (where, error) =>
      failures.push(`${where}: ${error instanceof Error ? error.message : String(error)}`),
  });
  const subscription = z.looseObject({ subscription_id: z.string() });
  const signUp = async () =>
    subscription.parse(await setup("POST", "/v1/subscriptions", signupBody)).subscription_id;
  const subscriptionId = await signUp();
  const toCancel = await signUp();
  // A gateway-managed plan: its recurring_noti_url carries its secret.
  const gatewayManaged = subscription.parse(
    await setup("POST", "/v1/subscriptions", { ...signupBody, billing: "recurring" }),
  ).subscription_id;
  const notifyToken =
    (await local.stack.services.repository.getSubscription(gatewayManaged))?.notify_token ?? "";
  const chargeId = `${subscriptionId}-0-0`;

  // A window sign-up completed through the sandbox: its signed result is what status_url receives.
  const checkoutBody = { customer, plan, billing: "token", return_url: "https://merchant.example/return" };
  const checkout = z
    .object({ fgkey: z.string(), order_id: z.string() })
    .parse(await setup("POST", "/v1/checkouts", checkoutBody));
  const completed = z.object({ result: z.record(z.string(), z.string()) }).parse(
    await (
      await fetch(`${local.sandboxUrl}/sandbox/windows/${checkout.fgkey}/complete`, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ card_number: CARD, expiry_date: "203012", cvc: CVC }),
      })
    ).json(),
  );
  await settleWork(local.stack);

  add("merchant", merchantTarget("POST", "/v1/checkouts", { body: checkoutBody, requiresBody: true }));
  // A hosted checkout's pages, under its signed link, once its payment was refused: the retry's sample carries the
  // form token of the page's "Try again".
  const hosted = z
    .object({ checkout_url: z.string(), fgkey: z.string() })
    .parse(await setup("POST", "/v1/checkouts", { customer, plan, billing: "token" }));
  await fetch(`${local.sandboxUrl}/sandbox/windows/${hosted.fgkey}/complete`, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({ card_number: DECLINED_CARD, expiry_date: "203012", cvc: CVC }),
  });
  await settleWork(local.stack);
  const token = hosted.checkout_url.split("/").at(-1) ?? "";
  const page = await send({ method: "GET", path: `/pay/${token}`, headers: {} });
  const formTokenOf = (text: string) => ({
    form_token: /name="form_token" value="([^"]+)"/.exec(text)?.[1] ?? "",
  });
  for (const route of Object.values(CHECKOUT_PAGE_ROUTES))
    addPage(route, { token }, route === CHECKOUT_PAGE_ROUTES.retry ? formTokenOf(page.text) : undefined);
  addTryItPages({ checkout: "paid" }, { name: customer.name, email: customer.email, plan: "starter" });

  // A customer's portal, on a subscription of its own (its sample cancels at the period's end); a day's link, so the
  // clock's moves keep it open.
  const portalSubscription = await signUp();
  const portalBody = { subscription_id: portalSubscription, expires_in_minutes: 1440 };
  add("merchant", merchantTarget("POST", "/v1/portal-sessions", { body: portalBody, requiresBody: true }));
  const portalUrl = z
    .object({ url: z.string() })
    .parse(await setup("POST", "/v1/portal-sessions", portalBody)).url;
  const portalToken = portalUrl.split("/").at(-1) ?? "";
  const portalPage = await send({ method: "GET", path: `/portal/${portalToken}`, headers: {} });
  const portalParams = {
    token: portalToken,
    id: portalSubscription,
    action: "cancel",
    charge: `${portalSubscription}-0-0`,
  };
  for (const route of Object.values(PORTAL_PAGE_ROUTES)) {
    const params = Object.fromEntries(
      Object.entries(portalParams).filter(([name]) => route.path.includes(`{${name}}`)),
    );
    addPage(route, params, route === PORTAL_PAGE_ROUTES.action ? formTokenOf(portalPage.text) : undefined);
  }
  // That subscription's invoice, under the link the API hands out for it (its PDF is rendered once, into s3rver).
  const [portalCharge] = z
    .object({ charges: z.array(z.object({ invoice_number: z.string() }).loose()) })
    .parse(await setup("GET", `/v1/subscriptions/${portalSubscription}/charges`, undefined)).charges;
  const invoiceUrl = z
    .object({ hosted_url: z.string() })
    .loose()
    .parse(await setup("GET", `/v1/invoices/${portalCharge?.invoice_number}`, undefined)).hosted_url;
  for (const route of Object.values(DOCUMENT_PAGE_ROUTES))
    addPage(route, { token: invoiceUrl.split("/").at(-1) ?? "" });
  add("merchant", merchantTarget("POST", "/v1/subscriptions", { body: signupBody, requiresBody: true }));
  const id = { params: { id: subscriptionId } };
  add(
    "merchant",
    merchantTarget("GET", "/v1/subscriptions", {
      query: { status: "active", external_id: "acct_fuzz", limit: "5" },
    }),
  );
  add("merchant", merchantTarget("GET", "/v1/subscriptions/{id}", id));
  add(
    "merchant",
    merchantTarget("POST", "/v1/subscriptions/{id}", {
      ...id,
      body: { external_id: "acct_fuzz", metadata: { team: "fuzz" } },
      requiresBody: true,
    }),
  );
  add(
    "merchant",
    merchantTarget("POST", "/v1/subscriptions/{id}/adjust", {
      ...id,
      body: { amount: "21.00" },
      requiresBody: true,
    }),
  );
  add(
    "merchant",
    merchantTarget("POST", "/v1/subscriptions/{id}/payment-method", {
      ...id,
      body: { card: { number: CARD, expiry: "203012", cvc: CVC } },
      requiresBody: true,
    }),
  );
  add(
    "merchant",
    merchantTarget("POST", "/v1/subscriptions/{id}/pause", {
      ...id,
      body: { resume_at: "2099-01-01T00:00:00.000Z" },
    }),
  );
  add("merchant", merchantTarget("POST", "/v1/subscriptions/{id}/resume", id));
  add("merchant", merchantTarget("DELETE", "/v1/subscriptions/{id}", { params: { id: toCancel } }));
  add(
    "merchant",
    merchantTarget("POST", "/v1/subscriptions/{id}/charges", { ...id, body: { amount: "1.00" } }),
  );
  add("merchant", merchantTarget("GET", "/v1/subscriptions/{id}/charges", id));
  add("merchant", merchantTarget("GET", "/v1/charges/{id}/receipt", { params: { id: chargeId } }));
  add(
    "merchant",
    merchantTarget("POST", "/v1/charges/{id}/refunds", {
      params: { id: chargeId },
      body: { amount: "0.01", reason: "fuzz" },
      requiresBody: true,
    }),
  );
  const listing = { query: { subscription_id: subscriptionId, from: "2020-01-01", limit: "5" } };
  add("merchant", merchantTarget("GET", "/v1/invoices", listing));
  add("merchant", merchantTarget("GET", "/v1/credit-notes", listing));
  const charged = z
    .object({ charges: z.array(z.object({ invoice_number: z.string() }).passthrough()).min(1) })
    .parse(await setup("GET", `/v1/subscriptions/${subscriptionId}/charges`, undefined));
  const invoiceNumber = charged.charges[0]?.invoice_number ?? "";
  const creditNoteNumber = z
    .object({ credit_note_number: z.string() })
    .passthrough()
    .parse(
      await setup("POST", `/v1/charges/${chargeId}/refunds`, { amount: "0.01", reason: "setup" }),
    ).credit_note_number;
  add("merchant", merchantTarget("GET", "/v1/invoices/{number}", { params: { number: invoiceNumber } }));
  add(
    "merchant",
    merchantTarget("GET", "/v1/credit-notes/{number}", { params: { number: creditNoteNumber } }),
  );
  const priceBody = { product: { name: "Fuzz" }, amount: "9.90", currency: "USD", interval_months: 1 };
  add("merchant", merchantTarget("POST", "/v1/prices", { body: priceBody, requiresBody: true }));
  add("merchant", merchantTarget("GET", "/v1/prices", { query: { active: "true", limit: "5" } }));
  const priceId = z
    .object({ price_id: z.string() })
    .parse(await setup("POST", "/v1/prices", priceBody)).price_id;
  add("merchant", merchantTarget("GET", "/v1/prices/{id}", { params: { id: priceId } }));
  add(
    "merchant",
    merchantTarget("POST", "/v1/prices/{id}", {
      params: { id: priceId },
      body: { metadata: { fuzz: "yes" } },
      requiresBody: true,
    }),
  );
  const couponBody = { percent_off: 10, duration: "once" };
  add("merchant", merchantTarget("POST", "/v1/coupons", { body: couponBody, requiresBody: true }));
  add("merchant", merchantTarget("GET", "/v1/coupons", { query: { limit: "5" } }));
  const couponId = z
    .object({ coupon_id: z.string() })
    .parse(await setup("POST", "/v1/coupons", couponBody)).coupon_id;
  add("merchant", merchantTarget("GET", "/v1/coupons/{id}", { params: { id: couponId } }));
  // Webhook endpoints subscribed to an event no route of the fuzz makes (a delivery would change state in the
  // background): one to read the deliveries of, one the DELETE sample deletes.
  const hookBody = {
    url: "http://127.0.0.1:9/fuzz-hook",
    events: ["chargeback.updated"],
    description: "fuzz",
  };
  add("merchant", merchantTarget("POST", "/v1/webhook-endpoints", { body: hookBody, requiresBody: true }));
  add("merchant", merchantTarget("GET", "/v1/webhook-endpoints", {}));
  const hookId = async () =>
    z.object({ id: z.string() }).parse(await setup("POST", "/v1/webhook-endpoints", hookBody)).id;
  const [readHook, deletedHook] = [await hookId(), await hookId()];
  add("merchant", merchantTarget("DELETE", "/v1/webhook-endpoints/{id}", { params: { id: deletedHook } }));
  add(
    "merchant",
    merchantTarget("GET", "/v1/webhook-endpoints/{id}/deliveries", { params: { id: readHook } }),
  );
  add("merchant", merchantTarget("POST", "/local/clock", { body: { advance: "PT1S" }, requiresBody: true }));
  add("callback", callbackTarget("GET", "/openapi.json", {}));
  add("callback", callbackTarget("GET", "/local/mail", {}));
  add("callback", callbackTarget("GET", "/webhooks/status", { query: completed.result }));
  add("callback", callbackTarget("POST", "/webhooks/status", { body: completed.result }));
  add(
    "callback",
    callbackTarget("POST", "/webhooks/recurring", {
      query: { subscription_id: gatewayManaged, token: notifyToken },
      body: { order_id: chargeId },
      requiresBody: true,
    }),
  );
  const partnerEvent = {
    id: "evt_fuzz_1",
    eventType: "PAYMENT_COMPLETED",
    timestamp: START.toISOString(),
    data: { invoice: { invoiceNumber: checkout.order_id }, payment: { transactionId: "TX_FUZZ_UNKNOWN" } },
  };
  add("callback", callbackTarget("POST", "/webhooks/partner", { body: partnerEvent, requiresBody: true }));
  const gatewayEvent = {
    rescode: "0000",
    resmsg: "Success",
    type: "PAYOUT_REMITTANCE_COMPLETE",
    data: { payout_id: "PO_FUZZ" },
  };
  const names = webhookHeaderNames();
  const gatewayBody = JSON.stringify(gatewayEvent);
  const signed = {
    [names.signature]: signWebhookBody(gatewayBody, TEST_MERCHANT.webhookSecret),
    [names.transmissionTime]: formatTransmissionTime(local.clock.now()),
  };
  add(
    "callback",
    callbackTarget("POST", "/webhooks/gateway", {
      body: gatewayEvent,
      requiresBody: true,
      credentials: signed,
    }),
    signedWebhookCases({
      path: "/webhooks/gateway",
      sample: gatewayEvent,
      secret: TEST_MERCHANT.webhookSecret,
      toleranceSeconds: WEBHOOK_TOLERANCE_SECONDS,
      now: () => local.clock.now(),
    }),
  );
}, 60_000);

afterAll(async () => {
  agent.destroy();
  await local?.close();
  if (stats.length > 0)
    console.log(`local API fuzz, ${RUNS} runs per route, seed ${SEED}:\n${stats.join("\n")}`);
});

describe("local API fuzz: hostile requests to every route", () => {
  it("has a sample for every route the local API serves", () => {
    expect([...samples.keys()].sort()).toEqual(servedRoutes());
  });

  it("answers the sample of every route with success", async () => {
    for (const sample of samples.values()) {
      const response = await send(sampleRequest(sample));
      // A page's action answers by a redirect to the page.
      const success = sample.kind === "page" ? 400 : 300;
      expect(response.status, `${sample.target.name}: ${response.text.slice(0, 300)}`).toBeLessThan(success);
    }
    await settleWork(local.stack);
  });

  describe.each(servedRoutes())("%s", (name) => {
    it(
      `survives ${RUNS} hostile requests without a 5xx, an undocumented answer or a state change`,
      async () => {
        const sample = samples.get(name);
        if (sample === undefined) throw new Error(`no sample for ${name}`);
        const cases = sample.extra
          ? fc.oneof(fuzzCases(sample.target), sample.extra)
          : fuzzCases(sample.target);
        const statuses = new Map<number, number>();
        let accepted = 0;
        const started = Date.now();
        const batchStart = await stackState(local.stack);
        // Merchant routes answer synchronously. The state is read only when it must be: before a request that may
        // succeed (proving the refused requests since the last reading changed nothing), after a success (the new
        // baseline) and at the end. A request that must be refused needs no reading of its own.
        let baseline = batchStart;
        let refusedSince: string[] = [];
        const checkRefused = async () => {
          if (refusedSince.length === 0) return;
          expect(
            await stackState(local.stack),
            `state changed by refused requests:\n${refusedSince.slice(-20).join("\n")}`,
          ).toEqual(baseline);
          refusedSince = [];
        };
        const property = fc.asyncProperty(cases, async (c) => {
          if (sample.changes === "on success" && !c.mustRefuse) await checkRefused();
          const response = await send(c.request);
          const where = `${name} ← ${describeCase(c)} → HTTP ${response.status} ${response.text.slice(0, 200)}`;
          statuses.set(response.status, (statuses.get(response.status) ?? 0) + 1);
          expect(contractBreach(sample, c, response), where).toBeUndefined();
          if (response.status < 400) accepted++;
          if (response.status >= 400) {
            refusedSince.push(where);
            expect(local.stack.sandbox.state.revision, `sandbox changed: ${where}`).toBe(
              baseline.sandboxRevision,
            );
          } else if (sample.changes === "on success") {
            // The success's events are delivered first (as the table stream soon would): their outbox is emptied
            // now, not between this reading and the next.
            await local.stack.deliverEvents();
            baseline = await stackState(local.stack);
          }
        });
        await fc.assert(property, { numRuns: RUNS, seed: SEED });
        if (sample.changes === "on success") await checkRefused();
        else {
          // Acknowledged callbacks were queued: once process-intake has handled them, nothing they said changed
          // billing state (a signed webhook leaves its de-duplication record).
          await settleWork(local.stack);
          expect(withoutDedup(await stackState(local.stack))).toEqual(withoutDedup(batchStart));
        }
        stats.push(
          `${name.padEnd(26)} ${String(RUNS).padStart(6)} requests  accepted ${String(accepted).padStart(5)}  ${((Date.now() - started) / 1000).toFixed(1).padStart(5)} s  statuses ${[
            ...statuses,
          ]
            .sort(([a], [b]) => a - b)
            .map(([status, count]) => `${status}×${count}`)
            .join(" ")}`,
        );
      },
      ROUTE_TIMEOUT_MS,
    );
  });

  it("answers unparseable HTTP (unknown method, oversized head) with API Gateway's JSON, as the fuzzer found", async () => {
    const unknownMethod = await send({ method: "FUZZ", path: "/v1/subscriptions", headers: bearer(API_KEY) });
    expect([unknownMethod.status, JSON.parse(unknownMethod.text)]).toEqual([400, { message: "Bad Request" }]);
    const oversized = await send({ method: "GET", path: `/v1/subscriptions/${"a".repeat(20_000)}` });
    expect([oversized.status, JSON.parse(oversized.text)]).toEqual([
      431,
      { message: "Request Header Fields Too Large" },
    ]);
    // The connection was closed after the refusal; the next request gets a new one.
    expect((await send({ method: "GET", path: "/openapi.json" })).status).toBe(200);
  });

  it("still answers afterwards, no handler crashed and no prototype was polluted", async () => {
    const response = await send({ method: "GET", path: "/openapi.json" });
    expect(response.status).toBe(200);
    // Local mode serves its own document: at its URL, with the routes only it serves.
    expect(JSON.parse(response.text)).toMatchObject({
      servers: [{ url: local.url }],
      paths: { "/local/clock": { post: expect.anything() } },
    });
    expect(Object.hasOwn(Object.prototype, "polluted")).toBe(false);
    expect(failures).toEqual([]);
  });

  it("leaked no card data or secret in any log line, metric dimension or answer", () => {
    const secrets = leakSecretsOf(TEST_MERCHANT, { merchantApiKeys: [API_KEY], cvcs: [CVC] });
    const logs = output.text();
    expect(logs).toContain("merchant API request refused");
    // The try-it page shows the sandbox's test cards on purpose, each in its cell of the page's table: anywhere
    // else a card number is a leak.
    const unshown = (text: string) =>
      TRY_IT_TEST_CARDS.reduce((rest, [card]) => rest.replaceAll(`<td><code>${card}</code></td>`, ""), text);
    const hits = scanForLeaks(
      [
        ...outputSources(logs),
        ...answers.map((text, index) => ({ where: `answer ${index + 1}`, text: unshown(text) })),
      ],
      secrets,
    );
    expect(hits.slice(0, 10)).toEqual([]);
  });
});
