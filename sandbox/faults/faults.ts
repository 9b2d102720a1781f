import { z } from "zod";
import { createPrng, deriveSeed, type Prng } from "../shared/prng";

const rate = z.number().min(0, "must be between 0 and 1").max(1, "must be between 0 and 1");
const millis = z.number().int("must be a whole number of ms").min(0, "must not be negative").max(600_000);

/** What can go wrong, per request or per outbound delivery. */
export const faultSettingsSchema = z.strictObject({
  /** Delay before handling (real time, not the sandbox clock). */
  latencyMs: millis,
  /** Extra delay, uniform in [0, latencyJitterMs]. */
  latencyJitterMs: millis,
  /** Answer 503 before handling: nothing committed. */
  errorRate: rate,
  /** Answer 429 (too many requests) before handling: nothing committed. */
  throttleRate: rate,
  /** Handle and commit, then never answer (until the client gives up or the sandbox closes). */
  timeoutAfterCommitRate: rate,
  /** Handle and commit, then answer HTTP 500 (the gateway failed after it acted). */
  errorAfterCommitRate: rate,
  /** Destroy the connection before handling: nothing committed. */
  resetRate: rate,
  /** Call status_url twice. */
  duplicateStatusUrlRate: rate,
  /** Hold a webhook and send it after the next one to the same URL. */
  outOfOrderWebhookRate: rate,
  /** Answer the gateway's internal errors before handling (EM00 "try again later" or EX1000): nothing committed. */
  internalErrorRate: rate,
  /** Send a status_url callback in one of the other forms (the seed's, or the older short names). */
  mixedCallbackFormRate: rate,
});
export type FaultSettings = z.output<typeof faultSettingsSchema>;

const partialSettings = faultSettingsSchema.partial();

/** Global defaults plus overrides by route name; both partial, unset values are 0. */
export const faultConfigSchema = z.strictObject({
  global: partialSettings.default({}),
  routes: z.record(z.string().min(1), partialSettings).default({}),
});
export type FaultConfigInput = z.input<typeof faultConfigSchema>;
export type FaultConfig = z.output<typeof faultConfigSchema>;

/** A full config, or as a shorthand bare global settings (`{"errorRate":0.1}`). */
export type FaultConfigOrSettings = FaultConfigInput | z.input<typeof partialSettings>;

/** Validates either form; a ZodError names the bad field (`routes.payments.cancel.errorRate`). */
export function parseFaultConfig(input: unknown): FaultConfig {
  const full = typeof input === "object" && input !== null && ("global" in input || "routes" in input);
  if (full) return faultConfigSchema.parse(input, { reportInput: false });
  return { global: partialSettings.parse(input, { reportInput: false }), routes: {} };
}

const NO_FAULTS: FaultSettings = {
  latencyMs: 0,
  latencyJitterMs: 0,
  errorRate: 0,
  throttleRate: 0,
  timeoutAfterCommitRate: 0,
  errorAfterCommitRate: 0,
  resetRate: 0,
  duplicateStatusUrlRate: 0,
  outOfOrderWebhookRate: 0,
  internalErrorRate: 0,
  mixedCallbackFormRate: 0,
};

/**
 * What happens to one request: reset, error (503), throttle (429) and internalError (EM00 / EX1000) act before the
 * handler, timeoutAfterCommit and errorAfterCommit (500) after it.
 */
export type RequestAction =
  | "none"
  | "reset"
  | "error"
  | "throttle"
  | "internalError"
  | "timeoutAfterCommit"
  | "errorAfterCommit";
export interface RequestFaults {
  readonly latencyMs: number;
  readonly action: RequestAction;
  /** The rescode of an internalError. */
  readonly internalCode?: InternalErrorCode;
}

/** The gateway's internal errors (README, The real gateway): EM00 "try again later", EX1000 internal server error. */
export const INTERNAL_ERROR_CODES = ["EM00", "EX1000"] as const;
export type InternalErrorCode = (typeof INTERNAL_ERROR_CODES)[number];

export type DeliveryFault = "duplicateStatusUrl" | "outOfOrderWebhook" | "mixedCallbackForm";

export type FaultKind = "latency" | Exclude<RequestAction, "none"> | DeliveryFault;
export type FaultCounts = Record<FaultKind | "requests", number>;

function emptyCounts(): FaultCounts {
  return {
    requests: 0,
    latency: 0,
    reset: 0,
    error: 0,
    throttle: 0,
    timeoutAfterCommit: 0,
    errorAfterCommit: 0,
    internalError: 0,
    duplicateStatusUrl: 0,
    outOfOrderWebhook: 0,
    mixedCallbackForm: 0,
  };
}

const RATE_OF_DELIVERY_FAULT = {
  duplicateStatusUrl: "duplicateStatusUrlRate",
  outOfOrderWebhook: "outOfOrderWebhookRate",
  mixedCallbackForm: "mixedCallbackFormRate",
} as const satisfies Record<DeliveryFault, keyof FaultSettings>;

/**
 * Decides the faults of each request and delivery from a seed. Each route has its own random stream and every
 * decision draws the same number of values whatever the rates, so the n-th request to a route meets the same
 * fate in every run with the same seed, however other routes interleave.
 */
export class FaultInjector {
  readonly #seed: number;
  #config: FaultConfig;
  readonly #streams = new Map<string, Prng>();
  #total = emptyCounts();
  #byRoute = new Map<string, FaultCounts>();

  constructor(seed: number, config: FaultConfigOrSettings = {}) {
    this.#seed = seed;
    this.#config = parseFaultConfig(config);
  }

  get seed(): number {
    return this.#seed;
  }

  get config(): FaultConfig {
    return structuredClone(this.#config);
  }

  /** Replaces the whole configuration (either form; throws a ZodError naming the bad field). */
  configure(input: unknown): FaultConfig {
    this.#config = parseFaultConfig(input);
    return this.config;
  }

  /** Global settings overlaid with the route's overrides. */
  settingsFor(route?: string): FaultSettings {
    const override = route === undefined ? undefined : this.#config.routes[route];
    return { ...NO_FAULTS, ...this.#config.global, ...override };
  }

  decideRequest(route: string): RequestFaults {
    const settings = this.settingsFor(route);
    const random = this.#stream(`request:${route}`);
    // Eight draws every time, in this order, whatever the rates.
    const jitter = random.next();
    const reset = random.next();
    const error = random.next();
    const timeout = random.next();
    const internal = random.next();
    const which = random.next();
    const afterCommit = random.next();
    const throttle = random.next();
    const latencyMs = settings.latencyMs + Math.floor(jitter * (settings.latencyJitterMs + 1));
    const action: RequestAction =
      reset < settings.resetRate
        ? "reset"
        : error < settings.errorRate
          ? "error"
          : throttle < settings.throttleRate
            ? "throttle"
            : internal < settings.internalErrorRate
              ? "internalError"
              : timeout < settings.timeoutAfterCommitRate
                ? "timeoutAfterCommit"
                : afterCommit < settings.errorAfterCommitRate
                  ? "errorAfterCommit"
                  : "none";
    this.#count(route, "requests");
    if (latencyMs > 0) this.#count(route, "latency");
    if (action !== "none") this.#count(route, action);
    if (action !== "internalError") return { latencyMs, action };
    return { latencyMs, action, internalCode: which < 0.5 ? "EM00" : "EX1000" };
  }

  /** Whether this delivery meets `fault`; `route` is the request that caused it (none for clock-driven work). */
  decideDelivery(fault: DeliveryFault, route?: string): boolean {
    const hit =
      this.#stream(`${fault}:${route ?? ""}`).next() < this.settingsFor(route)[RATE_OF_DELIVERY_FAULT[fault]];
    if (hit) this.#count(route, fault);
    return hit;
  }

  /** The form of one status_url callback: the configured one, or (mixedCallbackFormRate) one of the others. */
  decideCallbackForm<F extends string>(forms: readonly F[], configured: F, route?: string): F {
    if (!this.decideDelivery("mixedCallbackForm", route)) return configured;
    const others = forms.filter((form) => form !== configured);
    const pick = this.#stream(`mixedCallbackForm:pick:${route ?? ""}`).next();
    return others[Math.floor(pick * others.length)] ?? configured;
  }

  counters(): { total: FaultCounts; byRoute: Record<string, FaultCounts> } {
    return {
      total: { ...this.#total },
      byRoute: Object.fromEntries([...this.#byRoute].map(([k, v]) => [k, { ...v }])),
    };
  }

  resetCounters(): void {
    this.#total = emptyCounts();
    this.#byRoute = new Map();
  }

  #stream(label: string): Prng {
    let stream = this.#streams.get(label);
    if (!stream) {
      stream = createPrng(deriveSeed(this.#seed, label));
      this.#streams.set(label, stream);
    }
    return stream;
  }

  #count(route: string | undefined, kind: FaultKind | "requests"): void {
    this.#total[kind]++;
    if (route === undefined) return;
    let counts = this.#byRoute.get(route);
    if (!counts) {
      counts = emptyCounts();
      this.#byRoute.set(route, counts);
    }
    counts[kind]++;
  }
}
