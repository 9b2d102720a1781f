import { createHmac } from "node:crypto";
import { fail, type LedgerCore, mapFor, ok, type StoreResult } from "./ledger-core";

/** A partner webhook subscription (seed 002), in the partner API's own types. */
export interface PartnerSubscription {
  readonly id: string;
  readonly mid: string;
  readonly endpointUrl: string;
  readonly eventTypes: readonly string[];
  readonly isActive: boolean;
  /** ISO 8601. */
  readonly createdAt: string;
}

export interface SubscriptionChange {
  readonly endpointUrl: string;
  readonly eventTypes: readonly string[];
  readonly isActive?: boolean;
}

export interface IssuedPartnerToken {
  readonly token: string;
  readonly mid: string;
  readonly expiresAt: Date;
}

/** The access token lives 24 hours (seed 002). */
export const PARTNER_TOKEN_TTL_MS = 24 * 60 * 60 * 1000;

/** The one partner event type the seed documents. */
export const PAYMENT_COMPLETED_EVENT = "PAYMENT_COMPLETED";

const base64url = (value: unknown) => Buffer.from(JSON.stringify(value)).toString("base64url");

/** Partner webhook subscriptions per merchant and the issued partner access tokens. */
export class PartnerStore {
  readonly #core: LedgerCore;
  readonly #subscriptions = new Map<string, Map<string, PartnerSubscription>>();
  readonly #tokens = new Map<string, IssuedPartnerToken>();
  #subscriptionCount = 0;
  #tokenSerial = 0;

  constructor(core: LedgerCore) {
    this.#core = core;
  }

  createSubscription(mid: string, input: SubscriptionChange, now: Date): PartnerSubscription {
    const subscription: PartnerSubscription = {
      id: this.#core.nextId("subscription"),
      mid,
      endpointUrl: input.endpointUrl,
      eventTypes: [...input.eventTypes],
      isActive: input.isActive ?? true,
      createdAt: now.toISOString(),
    };
    mapFor(this.#subscriptions, mid).set(subscription.id, subscription);
    this.#subscriptionCount++;
    this.#core.bump();
    return subscription;
  }

  listSubscriptions(mid: string): PartnerSubscription[] {
    return [...(this.#subscriptions.get(mid)?.values() ?? [])];
  }

  findSubscription(mid: string, id: string): PartnerSubscription | undefined {
    return this.#subscriptions.get(mid)?.get(id);
  }

  /** PUT: replaces URL and event types; isActive only when given. */
  updateSubscription(
    mid: string,
    id: string,
    change: SubscriptionChange,
  ): StoreResult<PartnerSubscription, "subscription_not_found"> {
    const current = this.findSubscription(mid, id);
    if (!current) return fail("subscription_not_found");
    const updated: PartnerSubscription = {
      id: current.id,
      mid: current.mid,
      endpointUrl: change.endpointUrl,
      eventTypes: [...change.eventTypes],
      isActive: change.isActive ?? current.isActive,
      createdAt: current.createdAt,
    };
    mapFor(this.#subscriptions, mid).set(id, updated);
    this.#core.bump();
    return ok(updated);
  }

  deleteSubscription(mid: string, id: string): StoreResult<PartnerSubscription, "subscription_not_found"> {
    const current = this.findSubscription(mid, id);
    if (!current) return fail("subscription_not_found");
    this.#subscriptions.get(mid)?.delete(id);
    this.#subscriptionCount--;
    this.#core.bump();
    return ok(current);
  }

  /** Active subscriptions of a merchant to an event type (where partner events go). */
  subscribersOf(mid: string, eventType: string): PartnerSubscription[] {
    return this.listSubscriptions(mid).filter((s) => s.isActive && s.eventTypes.includes(eventType));
  }

  *allSubscriptions(): IterableIterator<PartnerSubscription> {
    for (const subscriptions of this.#subscriptions.values()) yield* subscriptions.values();
  }

  /** A new JWT-shaped access token, valid for `ttlMs` from `now`; every issue is a different token. */
  issueToken(mid: string, now: Date, ttlMs = PARTNER_TOKEN_TTL_MS): IssuedPartnerToken {
    this.#pruneExpired(now);
    const expiresAt = new Date(now.getTime() + ttlMs);
    const header = base64url({ alg: "HS256", typ: "JWT" });
    const payload = base64url({
      sub: mid,
      jti: ++this.#tokenSerial,
      iat: Math.floor(now.getTime() / 1000),
      exp: Math.floor(expiresAt.getTime() / 1000),
    });
    const signature = createHmac("sha256", "sandbox-partner-token")
      .update(`${header}.${payload}`)
      .digest("base64url");
    const issued: IssuedPartnerToken = { token: `${header}.${payload}.${signature}`, mid, expiresAt };
    this.#tokens.set(issued.token, issued);
    this.#core.bump();
    return issued;
  }

  /** The token's holder while it is valid at `now`; undefined for an unknown or expired token (AUTH_3001). */
  verifyToken(token: string, now: Date): IssuedPartnerToken | undefined {
    const issued = this.#tokens.get(token);
    return issued && issued.expiresAt.getTime() > now.getTime() ? issued : undefined;
  }

  /** Ends every token of a merchant now (tests of AUTH_3001 and the forced refresh). */
  revokeTokens(mid: string): number {
    let revoked = 0;
    for (const [token, issued] of this.#tokens) {
      if (issued.mid !== mid) continue;
      this.#tokens.delete(token);
      revoked++;
    }
    if (revoked > 0) this.#core.bump();
    return revoked;
  }

  get counts(): { subscriptions: number; tokens: number } {
    return { subscriptions: this.#subscriptionCount, tokens: this.#tokens.size };
  }

  /** Keeps the map bounded under token churn; expired tokens are refused either way. */
  #pruneExpired(now: Date): void {
    for (const [token, issued] of this.#tokens) {
      if (issued.expiresAt.getTime() <= now.getTime()) this.#tokens.delete(token);
    }
  }
}
