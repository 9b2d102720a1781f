import type { IncomingMessage, ServerResponse } from "node:http";
import type { Reply } from "./replies";
import { bodyKindOf, type RouteDefinition, styleOfPath } from "./routes";

// The sandbox's HTTP on the wire: reading a bounded body, parsing the target and a JSON body as the gateway does (or
// a browser's form on the window's pages), writing a JSON reply or a page, and the answer to a request that is not
// HTTP at all.

export type BodyRead =
  | { readonly ok: true; readonly text: string }
  | { readonly ok: false; readonly tooLarge: boolean };

export function readBody(req: IncomingMessage, limit: number): Promise<BodyRead> {
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

export type BodyParse = { readonly body: Record<string, unknown> } | { readonly error: string };

/** `application/json`, with or without parameters (`; charset=UTF-8`). */
const isJsonContentType = (header: string | undefined) =>
  /^application\/json\s*(?:;|$)/i.test(header?.trim() ?? "");

const isFormContentType = (header: string | undefined) =>
  /^application\/x-www-form-urlencoded\s*(?:;|$)/i.test(header?.trim() ?? "");

export function parseBody(route: RouteDefinition, text: string, contentType: string | undefined): BodyParse {
  const kind = bodyKindOf(route);
  if (kind === "none" || (kind === "optional" && text.trim() === "")) return { body: {} };
  if (kind === "form") {
    return isFormContentType(contentType)
      ? { body: Object.fromEntries(new URLSearchParams(text)) }
      : { error: "content type is not application/x-www-form-urlencoded" };
  }
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

export function send(
  res: ServerResponse,
  reply: Reply,
  headers: Readonly<Record<string, string>> = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const text = reply.page?.text ?? JSON.stringify(reply.body ?? null);
  res.writeHead(reply.status, {
    "content-type": reply.page?.contentType ?? "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(text),
    ...reply.headers,
    ...headers,
  });
  res.end(text);
}

export function parseTarget(
  rawUrl: string | undefined,
): { path: string; query: URLSearchParams } | undefined {
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

/**
 * The raw response to unparseable HTTP (unknown method, oversized head…): still JSON, in the API family's dialect
 * when the request line shows its path.
 */
export function malformedHttpResponse(error: Error): string {
  const tooLarge = "code" in error && error.code === "HPE_HEADER_OVERFLOW";
  const json = JSON.stringify(styleOfPath(rawTargetPath(error)).badBody("malformed HTTP request").body);
  return (
    `HTTP/1.1 ${tooLarge ? "431 Request Header Fields Too Large" : "400 Bad Request"}\r\nconnection: close\r\n` +
    `content-type: application/json; charset=utf-8\r\ncontent-length: ${Buffer.byteLength(json)}\r\n\r\n${json}`
  );
}
