import { setMaxListeners } from "node:events";
import { createServer, type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import { adminRoutes } from "./admin-routes";
import { SandboxClock } from "./clock";
import { Deliverer } from "./deliveries";
import { type FaultConfigOrSettings, FaultInjector, type RequestFaults } from "./faults";
import { KOREA_UTC_OFFSET_MINUTES } from "./gateway-calendar";
import { Ledger } from "./ledger";
import { type Merchant, type MerchantInput, MerchantRegistry, TEST_MERCHANT } from "./merchant-config";
import { partnerRoutes } from "./partner-routes";
import { CALLBACK_FORMS, type CallbackForm } from "./payment-results";
import { paymentRoutes } from "./payment-routes";
import { paymentSandboxRoutes } from "./payment-sandbox-routes";
import { reconciliationRoutes } from "./reconciliation-routes";
import { type ErrorStyle, type Reply, replyForError, rescodeStyle } from "./replies";
import {
  type AuthKind,
  bodyKindOf,
  type RouteContext,
  type RouteDefinition,
  RouteTable,
  type SandboxRequest,
  styleOf,
  styleOfPath,
} from "./routes";
import { tokenBillingRoutes } from "./token-billing-routes";
import { webhookAdminRoutes } from "./webhook-admin-routes";
import { webhookTriggerRoutes } from "./webhook-triggers";

/** Routes every sandbox serves; the gateway's endpoints are added here. */
const BUILT_IN_ROUTES: readonly RouteDefinition[] = [
  ...adminRoutes,
  ...reconciliationRoutes,
  ...webhookAdminRoutes,
  ...webhookTriggerRoutes,
  ...partnerRoutes,
  ...paymentRoutes,
  ...tokenBillingRoutes,
  ...paymentSandboxRoutes,
];

export const DEFAULT_SEED = 1;
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

export interface SandboxOptions {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** Default: the test merchant only. */
  readonly merchants?: readonly MerchantInput[];
  /** Seed of every fault decision. */
  readonly seed?: number;
  readonly faults?: FaultConfigOrSettings;
  /** A clock to share (local mode); otherwise a new one starting at `start` (default real now). */
  readonly clock?: SandboxClock;
  readonly start?: Date;
  /** Extra routes (tests); the same as `addRoute` after start. */
  readonly routes?: readonly RouteDefinition[];
  readonly bodyLimitBytes?: number;
  /**
   * Zone of the gateway's timestamps and dates and of the webhook transmission time, minutes east of UTC; default
   * Korea's (+540), as the real gateway's.
   */
  readonly utcOffsetMinutes?: number;
  readonly deliveryTimeoutMs?: number;
  readonly webhookHeaderPrefix?: string;
  readonly deliveryLogLimit?: number;
  /** The form of status_url callbacks: the real gateway's by default (payment-results.ts). */
  readonly callbackForm?: CallbackForm;
}

export interface Sandbox {
  /** http://host:port, no trailing slash: the base URL of every API family. */
  readonly url: string;
  readonly port: number;
  readonly merchants: MerchantRegistry;
  readonly clock: SandboxClock;
  readonly faults: FaultInjector;
  /** The ledger (tests read it; endpoints change it). */
  readonly state: Ledger;
  /** Outbound calls and their log. */
  readonly deliveries: Deliverer;
  addRoute(route: RouteDefinition): void;
  /** Stops listening, ends held and open connections, aborts deliveries and cancels the sandbox's clock tasks. */
  close(): Promise<void>;
}

type Services = Omit<RouteContext, "route" | "merchant" | "deliver" | "callbackForm">;

const NO_FAULTS: RequestFaults = { latencyMs: 0, action: "none" };

type BodyRead =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly tooLarge: boolean };

function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
  if (Number(req.headers["content-length"] ?? 0) > limit)
    return Promise.resolve({ ok: false, tooLarge: true });
  return new Promise((resolve) => {
    const chunks: Buffer[] = [];
    let size = 0;
    req.on("data", (chunk: Buffer) => {
      size += chunk.length;
      if (size <= limit) chunks.push(chunk);
      else resolve({ ok: false, tooLarge: true });
    });
    req.on("end", () => resolve({ ok: true, text: Buffer.concat(chunks).toString("utf8") }));
    req.on("error", () => resolve({ ok: false, tooLarge: false }));
    req.on("close", () => resolve({ ok: false, tooLarge: false }));
  });
}

function isJsonObject(value: unknown): value is Record<string, unknown> {
  return typeof value === "object" && value !== null && !Array.isArray(value);
}

type BodyParse = { readonly body: Record<string, unknown> } | { readonly error: string };

/** `application/json`, with or without parameters (`; charset=UTF-8`). */
const isJsonContentType = (header: string | undefined) =>
  /^application\/json\s*(?:;|$)/i.test(header?.trim() ?? "");

function parseBody(route: RouteDefinition, text: string, contentType: string | undefined): BodyParse {
  const kind = bodyKindOf(route);
  if (kind === "none" || (kind === "optional" && text.trim() === "")) return { body: {} };
  // The gateway refuses a body it is not told is JSON (EC1001), even when it is.
  if (!isJsonContentType(contentType)) return { error: "content type is not application/json" };
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch {
    return { error: text.trim() === "" ? "empty body" : "malformed JSON" };
  }
  return isJsonObject(value) ? { body: value } : { error: "not a JSON object" };
}

function send(res: ServerResponse, reply: Reply, headers: Readonly<Record<string, string>> = {}): void {
  if (res.headersSent || res.destroyed) return;
  const json = JSON.stringify(reply.body ?? null);
  res.writeHead(reply.status, {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(json),
    ...reply.headers,
    ...headers,
  });
  res.end(json);
}

function parseTarget(rawUrl: string | undefined): { path: string; query: URLSearchParams } | undefined {
  try {
    const url = new URL(rawUrl ?? "/", "http://sandbox.invalid");
    return { path: url.pathname, query: url.searchParams };
  } catch {
    return undefined;
  }
}

/** The path of the request line that starts an unparseable packet; "" when the packet does not show it. */
function rawTargetPath(error: Error): string {
  const packet = "rawPacket" in error && Buffer.isBuffer(error.rawPacket) ? error.rawPacket : undefined;
  const target = /^[!-~]+ (\S+)/.exec(packet?.subarray(0, 8192).toString("latin1") ?? "")?.[1];
  return target === undefined ? "" : (parseTarget(target)?.path ?? "");
}

/** Starts the sandbox gateway on node:http; resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const clock = options.clock ?? new SandboxClock({ start: options.start });
  const scheduler = clock.scope();
  const faults = new FaultInjector(options.seed ?? DEFAULT_SEED, options.faults);
  const merchants = new MerchantRegistry(options.merchants ?? [TEST_MERCHANT]);
  const utcOffsetMinutes = options.utcOffsetMinutes ?? KOREA_UTC_OFFSET_MINUTES;
  const callbackForm = options.callbackForm ?? "real";
  const ledger = new Ledger({ utcOffsetMinutes });
  const deliveries = new Deliverer({
    clock,
    scheduler,
    faults,
    timeoutMs: options.deliveryTimeoutMs,
    headerPrefix: options.webhookHeaderPrefix,
    utcOffsetMinutes,
    logLimit: options.deliveryLogLimit,
  });
  const services: Services = { merchants, ledger, clock, scheduler, deliveries, faults };
  const table = new RouteTable();
  for (const route of [...BUILT_IN_ROUTES, ...(options.routes ?? [])]) table.add(route);
  const bodyLimit = options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES;
  const lifetime = new AbortController();
  // Every delayed request listens on this signal at once: under load that is far more than Node's warning level.
  setMaxListeners(0, lifetime.signal);
  const held = new Set<ServerResponse>();

  function authenticate(auth: AuthKind, headers: IncomingHttpHeaders): Merchant | undefined {
    switch (auth) {
      case "basic": {
        const match = /^Basic ([A-Za-z0-9+/]+={0,2})$/i.exec(headers.authorization ?? "");
        const decoded = match?.[1] ? Buffer.from(match[1], "base64").toString("utf8") : "";
        // base64(apiKey + ":"): the API key as user name, an empty password.
        return decoded.endsWith(":") ? merchants.byApiKey(decoded.slice(0, -1)) : undefined;
      }
      case "partner-api-key": {
        const apiKey = headers.apikey;
        return typeof apiKey === "string" ? merchants.byPartnerApiKey(apiKey) : undefined;
      }
      case "partner-bearer": {
        const token = /^Bearer (\S+)$/i.exec(headers.authorization ?? "")?.[1];
        const issued = token === undefined ? undefined : ledger.partner.verifyToken(token, clock.now());
        return issued && merchants.byMid(issued.mid);
      }
      case "none":
        return undefined;
    }
  }

  /** Latency, then reset / 503; false when the request must go no further. */
  async function applyPreFaults(
    fault: RequestFaults,
    res: ServerResponse,
    style: ErrorStyle,
  ): Promise<boolean> {
    if (fault.action === "reset") {
      res.socket?.resetAndDestroy();
      return false;
    }
    if (fault.latencyMs > 0) {
      try {
        await sleep(fault.latencyMs, undefined, { signal: lifetime.signal });
      } catch {
        res.socket?.destroy(); // the sandbox is closing
        return false;
      }
    }
    if (fault.action === "error") {
      send(res, style.unavailable());
      return false;
    }
    if (fault.action === "internalError") {
      send(res, style.internalError(fault.internalCode ?? "EM00"));
      return false;
    }
    return true;
  }

  async function runHandler(route: RouteDefinition, request: SandboxRequest, merchant: Merchant | undefined) {
    const context: RouteContext = {
      ...services,
      route: route.name,
      merchant,
      deliver: deliveries.forRoute(route.name),
      callbackForm: () => faults.decideCallbackForm(CALLBACK_FORMS, callbackForm, route.name),
    };
    try {
      return await route.handler(request, context);
    } catch (error) {
      return replyForError(error, styleOf(route));
    }
  }

  async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
    const target = parseTarget(req.url);
    const method = req.method ?? "";
    const match = target ? table.match(method, target.path) : { kind: "not-found" as const };
    if (!target || match.kind === "not-found") return send(res, styleOfPath(target?.path ?? "").notFound());
    if (match.kind === "method-not-allowed") {
      return send(res, styleOfPath(target.path).methodNotAllowed(), { allow: match.allowed.join(", ") });
    }
    const { route, params } = match;
    const style = styleOf(route);
    const fault = route.faults === false ? NO_FAULTS : faults.decideRequest(route.name);
    if (!(await applyPreFaults(fault, res, style))) return;
    const read = await readBody(req, bodyLimit);
    if (!read.ok) {
      if (read.tooLarge)
        send(
          res,
          { ...style.badBody(`larger than ${bodyLimit} bytes`), status: 413 },
          { connection: "close" },
        );
      return;
    }
    const merchant = authenticate(route.auth, req.headers);
    if (route.auth !== "none" && !merchant) return send(res, style.unauthorized(route.auth));
    const parsed = parseBody(route, read.text, req.headers["content-type"]);
    if ("error" in parsed) return send(res, style.badBody(parsed.error));
    const request: SandboxRequest = {
      method: route.method,
      path: target.path,
      params,
      query: target.query,
      headers: req.headers,
      body: parsed.body,
      rawBody: read.text,
    };
    const reply = await runHandler(route, request, merchant);
    if (fault.action === "timeoutAfterCommit") {
      // Committed, never answered: the client sees a timeout; close() ends the connection.
      held.add(res);
      res.on("close", () => held.delete(res));
      return;
    }
    send(res, reply);
  }

  const server = createServer((req, res) => {
    req.on("error", () => undefined); // a client that vanishes mid-body is not our error
    dispatch(req, res).catch(() => {
      // Only a bug of the dispatcher lands here; answer if still possible, never crash.
      if (!res.headersSent) send(res, rescodeStyle.internal());
      else res.destroy();
    });
  });
  server.on("clientError", (error, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    // Unparseable HTTP (unknown method, oversized head…) still answers JSON, in the family's dialect when known.
    const tooLarge = "code" in error && error.code === "HPE_HEADER_OVERFLOW";
    const json = JSON.stringify(styleOfPath(rawTargetPath(error)).badBody("malformed HTTP request").body);
    socket.end(
      `HTTP/1.1 ${tooLarge ? "431 Request Header Fields Too Large" : "400 Bad Request"}\r\nconnection: close\r\n` +
        `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(json)}\r\n\r\n${json}`,
    );
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("sandbox is not listening on TCP");
  const host = options.host ?? "127.0.0.1";

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`,
    port: address.port,
    merchants,
    clock,
    faults,
    state: ledger,
    deliveries,
    addRoute: (route) => table.add(route),
    close() {
      closing ??= (async () => {
        lifetime.abort();
        scheduler.cancelAll();
        deliveries.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const res of held) res.socket?.destroy();
        server.closeAllConnections();
        await closed;
        await deliveries.settled();
      })();
      return closing;
    },
  };
}
