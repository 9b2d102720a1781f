import type { GatewayContext } from "./context";
import { callPartnerApi, dataOf } from "./partner-call";
import { type GatewayResult, success } from "./result";
import { type PartnerToken, tokenResponse } from "./schemas/partner";

export type { PartnerToken } from "./schemas/partner";

export const PARTNER_TOKEN_PATH = "/api/v1/partner/auth/token";

/** Where the current access token lives: memory here, Secrets Manager in the deployed system. */
export interface PartnerTokenStore {
  get(): Promise<PartnerToken | undefined>;
  put(token: PartnerToken): Promise<void>;
}

export function createInMemoryPartnerTokenStore(initial?: PartnerToken): PartnerTokenStore {
  let current = initial;
  return {
    get: async () => current,
    put: async (token) => {
      current = token;
    },
  };
}

export interface PartnerTokenProvider {
  /** The stored token while more than the refresh window remains; otherwise a new one, stored. */
  current(): Promise<GatewayResult<PartnerToken>>;
  /**
   * A new token, stored. Given the token the API rejected (AUTH_3001), a different fresh token already stored by
   * another caller is returned instead of requesting one more.
   */
  forceRefresh(rejected?: string): Promise<GatewayResult<PartnerToken>>;
}

/** A partner token lives 24 h; by default it is replaced once less than 2 h remain. */
const DEFAULT_REFRESH_WINDOW_MS = 2 * 3_600_000;

export interface PartnerTokenProviderOptions {
  readonly store?: PartnerTokenStore;
  readonly refreshWindowMs?: number;
}

export function createPartnerTokenProvider(
  context: GatewayContext,
  options: PartnerTokenProviderOptions = {},
): PartnerTokenProvider {
  const store = options.store ?? createInMemoryPartnerTokenStore();
  const refreshWindowMs = options.refreshWindowMs ?? DEFAULT_REFRESH_WINDOW_MS;
  // Single flight: concurrent callers that need a new token share one request.
  let inFlight: Promise<GatewayResult<PartnerToken>> | undefined;

  const isFresh = (token: PartnerToken) =>
    Date.parse(token.expiredAt) - context.now().getTime() > refreshWindowMs;

  const fetchAndStore = async (): Promise<GatewayResult<PartnerToken>> => {
    const outcome = await fetchPartnerToken(context);
    if (outcome.kind !== "success") return outcome;
    await store.put(outcome.value);
    return outcome;
  };

  const refresh = (): Promise<GatewayResult<PartnerToken>> => {
    inFlight ??= fetchAndStore().finally(() => {
      inFlight = undefined;
    });
    return inFlight;
  };

  return {
    async current() {
      const stored = await store.get();
      return stored && isFresh(stored) ? success(stored) : refresh();
    },
    async forceRefresh(rejected) {
      if (rejected !== undefined) {
        const stored = await store.get();
        if (stored && stored.token !== rejected && isFresh(stored)) return success(stored);
      }
      return refresh();
    },
  };
}

/** GET the token endpoint with the partner API key; a read, so retried while unavailable. */
export async function fetchPartnerToken(context: GatewayContext): Promise<GatewayResult<PartnerToken>> {
  const { partnerApiKey } = context.config;
  if (partnerApiKey === undefined) {
    throw new Error("partnerApiKey is not configured: the partner API needs it to obtain an access token");
  }
  return dataOf(
    await callPartnerApi(context, {
      path: PARTNER_TOKEN_PATH,
      method: "GET",
      headers: { apiKey: partnerApiKey },
      kind: "read",
      response: tokenResponse,
    }),
  );
}
