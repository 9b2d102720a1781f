import type { IncomingMessage, ServerResponse } from "node:http";
import { setTimeout as sleep } from "node:timers/promises";
import type { Acquirer } from "../acquirer/acquirer";
import { CALLBACK_FORMS, type CallbackForm } from "../acquirer/callback-forms";
import type { RequestFaults } from "../faults/faults";
import type { Merchant } from "../state/merchant-config";
import { authenticate } from "./authentication";
import { parseBody, parseTarget, readBody, send } from "./http-wire";
import { type ErrorStyle, replyForError } from "./replies";
import {
  type RouteContext,
  type RouteDefinition,
  type RouteTable,
  type SandboxRequest,
  styleOf,
  styleOfPath,
} from "./routes";

// One request through the sandbox: route, faults before the handler (latency, reset, 503, internal error), body
// and authentication, the handler, and the fault after it (committed but never answered).

export interface DispatcherOptions {
  readonly table: RouteTable;
  /** What every route's handler is given, besides its own route, merchant and delivery channel. */
  readonly acquirer: Acquirer;
  readonly callbackForm: CallbackForm;
  readonly bodyLimitBytes: number;
  /** Aborted when the sandbox closes: delayed requests stop waiting. */
  readonly lifetime: AbortSignal;
  /** Responses held open by a timeoutAfterCommit fault, for close() to end. */
  readonly held: Set<ServerResponse>;
}

const NO_FAULTS: RequestFaults = { latencyMs: 0, action: "none" };

/** Latency, then reset / 503; false when the request must go no further. */
async function applyPreFaults(
  fault: RequestFaults,
  res: ServerResponse,
  style: ErrorStyle,
  lifetime: AbortSignal,
): Promise<boolean> {
  if (fault.action === "reset") {
    res.socket?.resetAndDestroy();
    return false;
  }
  if (fault.latencyMs > 0) {
    try {
      await sleep(fault.latencyMs, undefined, { signal: lifetime });
    } catch {
      res.socket?.destroy(); // the sandbox is closing
      return false;
    }
  }
  if (fault.action === "error") {
    send(res, style.unavailable());
    return false;
  }
  if (fault.action === "throttle") {
    send(res, style.throttled());
    return false;
  }
  if (fault.action === "internalError") {
    send(res, style.internalError(fault.internalCode ?? "EM00"));
    return false;
  }
  return true;
}

export function createDispatcher(options: DispatcherOptions) {
  const { table, acquirer, bodyLimitBytes } = options;
  const { faults, deliveries } = acquirer;

  async function runHandler(route: RouteDefinition, request: SandboxRequest, merchant: Merchant | undefined) {
    const context: RouteContext = {
      ...acquirer,
      route: route.name,
      merchant,
      deliver: deliveries.forRoute(route.name),
      callbackForm: () => faults.decideCallbackForm(CALLBACK_FORMS, options.callbackForm, route.name),
    };
    try {
      return await route.handler(request, context);
    } catch (error) {
      return replyForError(error, styleOf(route));
    }
  }

  return async function dispatch(req: IncomingMessage, res: ServerResponse): Promise<void> {
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
    if (!(await applyPreFaults(fault, res, style, options.lifetime))) return;
    const read = await readBody(req, bodyLimitBytes);
    if (!read.ok) {
      if (read.tooLarge) {
        const reply = { ...style.badBody(`larger than ${bodyLimitBytes} bytes`), status: 413 };
        send(res, reply, { connection: "close" });
      }
      return;
    }
    const merchant = authenticate(route.auth, req.headers, acquirer);
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
      options.held.add(res);
      res.on("close", () => options.held.delete(res));
      return;
    }
    // Committed, then failed: the client gets a 500 and cannot tell whether anything happened.
    send(res, fault.action === "errorAfterCommit" ? style.internal() : reply);
  };
}
