import { type LookupAddress, lookup } from "node:dns";
import {
  type ClientRequest,
  request as httpRequest,
  type IncomingMessage,
  type RequestOptions,
} from "node:http";
import { request as httpsRequest } from "node:https";
import { isIP, type LookupFunction } from "node:net";
import {
  WEBHOOK_TIMEOUT_MS,
  type WebhookEndpoint,
  type WebhookPostOutcome,
  type WebhookTransport,
} from "../../core/ports/webhook-ports";
import {
  EVENT_ID_HEADER,
  EVENT_TYPE_HEADER,
  SIGNATURE_HEADER,
  signBody,
} from "../../shared/billing-signature";
import { isPublicAddress } from "../../shared/public-address";
import { standardWebhookHeaders } from "../../shared/standard-webhooks";

// Our webhooks' way out (README, Webhooks): the URL rules and the signed POST. Outside local mode a URL must be https
// and its host may resolve only to public addresses (shared/public-address.ts): checked at registration, and again at
// every send against the address the request then connects to — the host is resolved once, every address checked,
// and the connection pinned to the checked one (Host and SNI stay the URL's host), so a DNS answer that changes
// between the check and the connection (DNS rebinding) never reaches a private address. Redirects are not followed.
// Local mode's rules take http and any address (the merchant's receivers on loopback), and ask DNS nothing themselves.

/** public: https only, public addresses only (AWS). local: http and any address too (local mode's receivers on loopback). */
export type WebhookUrlPolicy = "public" | "local";

/**
 * What a webhook URL may be: its schemes, and the addresses its host may resolve to (without `allows`, any: the host
 * is then resolved by the request itself, never asked at registration).
 */
export interface WebhookUrlRules {
  readonly schemes: readonly ("https:" | "http:")[];
  readonly allows?: (address: string) => boolean;
}

export const WEBHOOK_URL_RULES: Readonly<Record<WebhookUrlPolicy, WebhookUrlRules>> = {
  public: { schemes: ["https:"], allows: isPublicAddress },
  local: { schemes: ["https:", "http:"] },
};

/** Every address a host name resolves to. */
export type Resolve = (hostname: string) => Promise<readonly LookupAddress[]>;

export interface WebhookTransportOptions {
  readonly rules: WebhookUrlRules;
  /** Default: the system resolver (dns.lookup, every address). */
  readonly resolve?: Resolve;
  readonly timeoutMs?: number;
  /** When a POST is signed. Default: the wall clock (what the receiver checks the signature's time against). */
  readonly now?: () => Date;
}

const systemResolve: Resolve = (hostname) =>
  new Promise((resolve, reject) =>
    lookup(hostname, { all: true, verbatim: true }, (error, addresses) =>
      error ? reject(error) : resolve(addresses),
    ),
  );

const MAX_URL_LENGTH = 2048;

/** Why a URL's form may not receive webhooks under the rules (no DNS asked), or undefined. */
export function urlFormRefusal(url: string, rules: WebhookUrlRules): string | undefined {
  if (url.length > MAX_URL_LENGTH) return `must be at most ${MAX_URL_LENGTH} characters`;
  let parsed: URL;
  try {
    parsed = new URL(url);
  } catch {
    return "must be an absolute URL";
  }
  if (!rules.schemes.some((scheme) => scheme === parsed.protocol))
    return rules.schemes.includes("http:") ? "must be an http(s) URL" : "must use https";
  if (parsed.username !== "" || parsed.password !== "") return "must not carry credentials";
  if (parsed.hostname === "") return "must name a host";
  return undefined;
}

const PRIVATE_ADDRESS = "must not resolve to a private, loopback, link-local or reserved address";

/**
 * The addresses to connect to for `hostname`: every address it resolves to must be allowed (one that is not refuses
 * the host); undefined for an IP literal (itself) or when the rules allow any address. A string is the refusal.
 */
async function addressesOf(
  hostname: string,
  rules: WebhookUrlRules,
  resolve: Resolve,
): Promise<readonly LookupAddress[] | string | undefined> {
  const { allows } = rules;
  if (allows === undefined) return undefined;
  const bare = hostname.replace(/^\[|\]$/g, "");
  if (isIP(bare) !== 0) return allows(bare) ? undefined : PRIVATE_ADDRESS;
  let addresses: readonly LookupAddress[];
  try {
    addresses = await resolve(bare);
  } catch {
    return "must resolve to a public address (the host does not resolve)";
  }
  if (addresses.length === 0) return "must resolve to a public address (the host does not resolve)";
  if (!addresses.every((address) => allows(address.address))) return PRIVATE_ADDRESS;
  return addresses;
}

/**
 * A lookup that answers only the addresses already checked, whatever Node asks for (all of them, as its happy eyeballs
 * does, or the first): the request connects to one of those and never asks DNS again.
 */
function pinnedLookup(addresses: readonly LookupAddress[]): LookupFunction {
  return ((_hostname: string, options: { all?: boolean }, callback: (...args: unknown[]) => void) => {
    const [first] = addresses;
    if (options?.all) callback(null, [...addresses]);
    else callback(null, first?.address, first?.family);
  }) as unknown as LookupFunction;
}

/** Why a request failed, in a few words (its code: ECONNREFUSED, ENOTFOUND…): what the merchant reads. */
function errorText(error: unknown): string {
  if (error instanceof Error) {
    const code = (error as NodeJS.ErrnoException).code;
    return code === undefined ? error.message.slice(0, 200) : `connection failed (${code})`;
  }
  return "connection failed";
}

/** The headers that sign a delivery by its endpoint's scheme (README, Webhooks). */
function signatureHeaders(
  endpoint: Pick<WebhookEndpoint, "secret" | "signature_scheme">,
  body: string,
  eventId: string,
  at: Date,
): Readonly<Record<string, string>> {
  return endpoint.signature_scheme === "standard_webhooks"
    ? standardWebhookHeaders(eventId, body, endpoint.secret, at)
    : { [SIGNATURE_HEADER]: signBody(body, endpoint.secret, at), [EVENT_ID_HEADER]: eventId };
}

/** HTTPS (or, in local mode, HTTP) webhooks under the URL rules. */
export function createHttpsWebhookTransport(options: WebhookTransportOptions): WebhookTransport {
  const { rules, resolve = systemResolve, timeoutMs = WEBHOOK_TIMEOUT_MS, now = () => new Date() } = options;
  return {
    async refusalOf(url) {
      const refusal = urlFormRefusal(url, rules);
      if (refusal !== undefined) return refusal;
      const addresses = await addressesOf(new URL(url).hostname, rules, resolve);
      return typeof addresses === "string" ? addresses : undefined;
    },
    async post(endpoint, body, event) {
      const refusal = urlFormRefusal(endpoint.url, rules);
      if (refusal !== undefined) return { kind: "failed", error: `the URL ${refusal}` };
      const url = new URL(endpoint.url);
      const addresses = await addressesOf(url.hostname, rules, resolve);
      if (typeof addresses === "string") return { kind: "failed", error: `the host ${addresses}` };
      const headers = {
        "content-type": "application/json",
        "content-length": String(Buffer.byteLength(body)),
        "user-agent": "billing-webhooks/1",
        [EVENT_TYPE_HEADER]: event.type,
        ...signatureHeaders(endpoint, body, event.event_id, now()),
      };
      const requestOptions: RequestOptions & { servername?: string } = {
        method: "POST",
        headers,
        // A connection of its own: a pooled socket could be one made to another address.
        agent: false,
        ...(addresses === undefined ? {} : { lookup: pinnedLookup(addresses) }),
        // SNI names the host (never an IP literal, which TLS does not allow there).
        ...(url.protocol === "https:" && isIP(url.hostname.replace(/^\[|\]$/g, "")) === 0
          ? { servername: url.hostname }
          : {}),
      };
      return send(url, requestOptions, body, timeoutMs);
    },
  };
}

/** One request: the status once the whole answer is read, or why there is none, within `timeoutMs` all told. */
function send(
  url: URL,
  options: RequestOptions,
  body: string,
  timeoutMs: number,
): Promise<WebhookPostOutcome> {
  return new Promise((resolve) => {
    let settled = false;
    const finish = (outcome: WebhookPostOutcome) => {
      if (settled) return;
      settled = true;
      clearTimeout(timer);
      resolve(outcome);
    };
    const onResponse = (response: IncomingMessage) => {
      const status = response.statusCode ?? 0;
      response.on("error", (error) => finish({ kind: "failed", error: errorText(error) }));
      response.on("end", () => finish({ kind: "answered", status }));
      // The answer's body is not read, only drained.
      response.resume();
    };
    const request: ClientRequest =
      url.protocol === "https:"
        ? httpsRequest(url, options, onResponse)
        : httpRequest(url, options, onResponse);
    const timer = setTimeout(() => {
      const within = timeoutMs % 1000 === 0 ? `${timeoutMs / 1000} s` : `${timeoutMs} ms`;
      finish({ kind: "failed", error: `no answer within ${within}` });
      request.destroy();
    }, timeoutMs);
    request.on("error", (error) => finish({ kind: "failed", error: errorText(error) }));
    request.end(body);
  });
}
