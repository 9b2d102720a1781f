import { setMaxListeners } from "node:events";
import type { FaultInjector } from "../faults/faults";
import { webhookSignature } from "../shared/gateway-crypto";
import type { Merchant } from "../state/merchant-config";
import type { ClockScope, SandboxClock } from "../time/clock";
import { KOREA_UTC_OFFSET_MINUTES, zonedTimestamp } from "../time/gateway-calendar";
import { CALLBACK_METHODS, type CallbackForm } from "./callback-forms";
import { SUCCESS_RESCODE } from "./result-codes";

/** The real gateway's webhook header prefix (README, The real gateway); the seeds write it as `service`. */
export const WEBHOOK_HEADER_PREFIX = "eximbay";

export const DELIVERY_KINDS = ["status_url", "recurring_noti", "webhook", "partner_event"] as const;
export type DeliveryKind = (typeof DELIVERY_KINDS)[number];

/** One HTTP attempt to a merchant URL, as the delivery log keeps it. */
export interface DeliveryAttempt {
  /** Order in the log. */
  readonly seq: number;
  /** Shared by the duplicate and the re-sends of one delivery. */
  readonly deliveryId: number;
  readonly kind: DeliveryKind;
  readonly method: "GET" | "POST";
  /** Full URL (a status_url in the seed's form: with its query string). */
  readonly url: string;
  /** 1 for the first send, then the re-sends (webhooks, status_url). */
  readonly attempt: number;
  /** The second call of a duplicated status_url. */
  readonly duplicate: boolean;
  /** Sandbox time of the attempt, ISO 8601. */
  readonly at: string;
  /** What a POST sent: JSON, or a status_url result's form text. */
  readonly body?: string;
  /** status_url: the form the result was sent in (real, short, seed). */
  readonly form?: CallbackForm;
  readonly status?: number;
  /** rescode of the reply (JSON, or form-encoded text). */
  readonly rescode?: string;
  /** Network failure or timeout. */
  readonly error?: string;
  /** The reply's rescode was "0000". */
  readonly acknowledged: boolean;
}

/** The sending side handed to route handlers: the route's delivery faults apply. */
export interface RouteDeliverer {
  /**
   * The window result: POSTed as a form (real, short) or GET url?params (seed); re-sent every 5 minutes by the
   * sandbox clock, up to 3 times, until acknowledged.
   */
  statusUrl(url: string, params: Readonly<Record<string, string>>, form: CallbackForm): Promise<void>;
  /** POST JSON to recurring_noti_url. */
  recurringNoti(url: string, body: unknown): Promise<void>;
  /** POST signed JSON; re-sent hourly by the sandbox clock, up to 3 times, until acknowledged. */
  webhook(merchant: Merchant, url: string, body: unknown): Promise<void>;
  /** POST JSON of a partner event (no signature is documented). */
  partnerEvent(url: string, body: unknown): Promise<void>;
}

export interface DelivererOptions {
  readonly clock: SandboxClock;
  /** Where re-sends are queued (cancelled with the sandbox). */
  readonly scheduler: ClockScope;
  readonly faults: FaultInjector;
  /** Per attempt; default 5 s. */
  readonly timeoutMs?: number;
  readonly headerPrefix?: string;
  /** Zone of the transmission-time header, minutes east of UTC; default Korea's (+09:00), as the gateway's. */
  readonly utcOffsetMinutes?: number;
  /** Attempts kept (oldest dropped first); default 10,000. */
  readonly logLimit?: number;
}

/** CHARGEBACK webhooks are re-sent hourly, 3 times at most (the gateway's webhook page). */
export const WEBHOOK_RESEND_INTERVAL_MS = 60 * 60 * 1000;
export const WEBHOOK_MAX_RESENDS = 3;
/**
 * The real gateway re-sends a status_url result not answered rescode 0000 but publishes no schedule: the sandbox's
 * own is every 5 minutes, 3 times at most.
 */
export const STATUS_URL_RESEND_INTERVAL_MS = 5 * 60 * 1000;
export const STATUS_URL_MAX_RESENDS = 3;

/** How an unacknowledged delivery is sent again. */
interface Resends {
  readonly intervalMs: number;
  readonly max: number;
}
const WEBHOOK_RESENDS: Resends = { intervalMs: WEBHOOK_RESEND_INTERVAL_MS, max: WEBHOOK_MAX_RESENDS };
const STATUS_URL_RESENDS: Resends = {
  intervalMs: STATUS_URL_RESEND_INTERVAL_MS,
  max: STATUS_URL_MAX_RESENDS,
};

interface Outbound {
  readonly deliveryId: number;
  readonly kind: DeliveryKind;
  readonly method: "GET" | "POST";
  readonly url: string;
  readonly body?: string;
  readonly form?: CallbackForm;
  /** Per attempt: the transmission time changes on each re-send. */
  readonly headers: (at: Date) => Record<string, string>;
}

/** A POST's body and its content type. */
interface Payload {
  readonly text: string;
  readonly contentType: string;
}

const jsonPayload = (body: unknown): Payload => ({
  text: JSON.stringify(body),
  contentType: "application/json; charset=UTF-8",
});
const formPayload = (params: Readonly<Record<string, string>>): Payload => ({
  text: new URLSearchParams(params).toString(),
  contentType: "application/x-www-form-urlencoded",
});

/** A URL as the gateway would call it: a scheme-less one is taken as http. */
function callableUrl(url: string): string {
  return /^[a-z][a-z0-9+.-]*:\/\//i.test(url) ? url : `http://${url}`;
}

/** Appends the parameters as a query string; never throws (a bad URL fails at fetch, in the log). */
export function withQuery(url: string, params: Readonly<Record<string, string>>): string {
  return `${url}${url.includes("?") ? "&" : "?"}${new URLSearchParams(params)}`;
}

/**
 * The rescode of a merchant's reply: a JSON object (webhooks), or form-encoded text, `rescode=0000&resmsg=Success`
 * (status_url, as merchants answer the real gateway).
 */
function rescodeOf(text: string): string | undefined {
  try {
    const reply: unknown = JSON.parse(text);
    if (typeof reply !== "object" || reply === null || !("rescode" in reply)) return undefined;
    return typeof reply.rescode === "string" ? reply.rescode : undefined;
  } catch {
    return new URLSearchParams(text.trim()).get("rescode") ?? undefined;
  }
}

/**
 * Calls merchant URLs on behalf of the gateway. Every method resolves once its sends are done (re-sends excepted,
 * they run on the clock) and never rejects: a failed delivery is an entry in the log, not an error of the request
 * that caused it. Faults: duplicateStatusUrlRate sends a status_url twice; outOfOrderWebhookRate holds a webhook
 * or partner event until the next one to the same URL has been sent.
 */
export class Deliverer implements RouteDeliverer {
  readonly #options: DelivererOptions;
  readonly #log: DeliveryAttempt[] = [];
  readonly #inFlight = new Set<Promise<void>>();
  readonly #held = new Map<string, () => Promise<void>>();
  readonly #abort = abortableWithoutListenerLimit();
  #seq = 0;
  #deliveryId = 0;

  constructor(options: DelivererOptions) {
    this.#options = options;
  }

  statusUrl(
    url: string,
    params: Readonly<Record<string, string>>,
    form: CallbackForm,
    route?: string,
  ): Promise<void> {
    const twice = this.#options.faults.decideDelivery("duplicateStatusUrl", route);
    const request =
      CALLBACK_METHODS[form] === "GET"
        ? this.#outbound("status_url", withQuery(url, params))
        : this.#outbound("status_url", url, formPayload(params));
    const outbound = { ...request, form };
    return this.#track(async () => {
      await this.#sendWithResends(outbound, 1, STATUS_URL_RESENDS);
      if (twice) await this.#attempt(outbound, 1, true);
    });
  }

  recurringNoti(url: string, body: unknown): Promise<void> {
    const outbound = this.#outbound("recurring_noti", url, jsonPayload(body));
    return this.#track(async () => {
      await this.#attempt(outbound, 1, false);
    });
  }

  webhook(merchant: Merchant, url: string, body: unknown, route?: string): Promise<void> {
    const raw = JSON.stringify(body);
    const prefix = this.#options.headerPrefix ?? WEBHOOK_HEADER_PREFIX;
    const signature = webhookSignature(raw, merchant.webhookSecret);
    const outbound = this.#outbound("webhook", url, jsonPayload(body), (at) => ({
      [`${prefix}-webhook-signature`]: signature,
      [`${prefix}-webhook-transmission-time`]: zonedTimestamp(
        at,
        this.#options.utcOffsetMinutes ?? KOREA_UTC_OFFSET_MINUTES,
      ),
    }));
    return this.#inOrder(outbound, route, () => this.#sendWithResends(outbound, 1, WEBHOOK_RESENDS));
  }

  partnerEvent(url: string, body: unknown, route?: string): Promise<void> {
    const outbound = this.#outbound("partner_event", url, jsonPayload(body));
    return this.#inOrder(outbound, route, async () => {
      await this.#attempt(outbound, 1, false);
    });
  }

  /** The same senders with `route` bound, for a handler's context. */
  forRoute(route: string): RouteDeliverer {
    return {
      statusUrl: (url, params, form) => this.statusUrl(url, params, form, route),
      recurringNoti: (url, body) => this.recurringNoti(url, body),
      webhook: (merchant, url, body) => this.webhook(merchant, url, body, route),
      partnerEvent: (url, body) => this.partnerEvent(url, body, route),
    };
  }

  /** Attempts logged so far, oldest first, optionally of one kind. */
  entries(kind?: DeliveryKind): DeliveryAttempt[] {
    return kind === undefined ? [...this.#log] : this.#log.filter((entry) => entry.kind === kind);
  }

  /** Resolves when no send is in flight (held ones excepted). */
  async settled(): Promise<void> {
    while (this.#inFlight.size > 0) await Promise.allSettled([...this.#inFlight]);
  }

  /** Sends every held (out-of-order) delivery now. */
  async flushHeld(): Promise<void> {
    const held = [...this.#held.entries()];
    this.#held.clear();
    await Promise.all(held.map(([, send]) => this.#track(send)));
  }

  /** Aborts what is in flight and drops what is held; later sends do nothing. */
  close(): void {
    this.#held.clear();
    this.#abort.abort();
  }

  /** A GET without a payload, a POST with one. */
  #outbound(
    kind: DeliveryKind,
    url: string,
    payload?: Payload,
    headers: (at: Date) => Record<string, string> = () => ({}),
  ): Outbound {
    const deliveryId = ++this.#deliveryId;
    // The gateway takes merchant URLs without a scheme and calls them over http.
    const target = callableUrl(url);
    if (payload === undefined) return { deliveryId, kind, method: "GET", url: target, headers };
    return {
      deliveryId,
      kind,
      method: "POST",
      url: target,
      body: payload.text,
      headers: (at) => ({ "content-type": payload.contentType, ...headers(at) }),
    };
  }

  /** Holds this delivery when the fault says so; a held one goes right after the next delivery to its URL. */
  #inOrder(outbound: Outbound, route: string | undefined, send: () => Promise<void>): Promise<void> {
    const held = this.#held.get(outbound.url);
    if (held) {
      this.#held.delete(outbound.url);
      return this.#track(async () => {
        await send();
        await held();
      });
    }
    if (this.#options.faults.decideDelivery("outOfOrderWebhook", route)) {
      this.#held.set(outbound.url, send);
      return Promise.resolve();
    }
    return this.#track(send);
  }

  /** Sends now; while unacknowledged, again on the sandbox clock until the re-sends run out. */
  async #sendWithResends(outbound: Outbound, attempt: number, resends: Resends): Promise<void> {
    const entry = await this.#attempt(outbound, attempt, false);
    if (entry.acknowledged || attempt > resends.max || this.#abort.signal.aborted) return;
    const dueAt = new Date(this.#options.clock.now().getTime() + resends.intervalMs);
    this.#options.scheduler.schedule(
      dueAt,
      () => this.#sendWithResends(outbound, attempt + 1, resends),
      `${outbound.kind} re-send ${outbound.deliveryId}#${attempt + 1}`,
    );
  }

  async #attempt(outbound: Outbound, attempt: number, duplicate: boolean): Promise<DeliveryAttempt> {
    const at = this.#options.clock.now();
    const base = {
      seq: 0,
      deliveryId: outbound.deliveryId,
      kind: outbound.kind,
      method: outbound.method,
      url: outbound.url,
      attempt,
      duplicate,
      at: at.toISOString(),
      ...(outbound.body === undefined ? {} : { body: outbound.body }),
      ...(outbound.form === undefined ? {} : { form: outbound.form }),
    };
    try {
      const response = await fetch(outbound.url, {
        method: outbound.method,
        headers: outbound.headers(at),
        body: outbound.body,
        redirect: "manual",
        signal: AbortSignal.any([AbortSignal.timeout(this.#options.timeoutMs ?? 5000), this.#abort.signal]),
      });
      const rescode = rescodeOf(await response.text());
      return this.#record({
        ...base,
        status: response.status,
        rescode,
        acknowledged: rescode === SUCCESS_RESCODE,
      });
    } catch (error) {
      const reason = error instanceof Error ? `${error.name}: ${error.message}` : "delivery failed";
      return this.#record({ ...base, error: reason, acknowledged: false });
    }
  }

  #record(entry: DeliveryAttempt): DeliveryAttempt {
    const recorded = { ...entry, seq: ++this.#seq };
    this.#log.push(recorded);
    const limit = this.#options.logLimit ?? 10_000;
    if (this.#log.length > limit) this.#log.splice(0, this.#log.length - limit);
    return recorded;
  }

  /** Runs `work` now, remembered until done. Attempts catch their own failures; this guards the request path. */
  #track(work: () => Promise<void>): Promise<void> {
    const promise = work()
      .then(
        () => undefined,
        (error: unknown) => console.error("sandbox delivery failed:", error),
      )
      .finally(() => this.#inFlight.delete(promise));
    this.#inFlight.add(promise);
    return promise;
  }
}

/** Every in-flight delivery listens on the one abort signal: more than Node's warning level under load. */
function abortableWithoutListenerLimit(): AbortController {
  const controller = new AbortController();
  setMaxListeners(0, controller.signal);
  return controller;
}
