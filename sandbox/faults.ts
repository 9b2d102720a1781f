import { z } from "zod";
import { createPrng, deriveSeed, type Prng } from "./prng";

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
  /** Handle and commit, then never answer (until the client gives up or the sandbox closes). */
  timeoutAfterCommitRate: rate,
  /** Destroy the connection before handling: nothing committed. */
  resetRate: rate,
  /** Call status_url twice. */
  duplicateStatusUrlRate: rate,
  /** Hold a webhook and send it after the next one to the same URL. */
  outOfOrderWebhookRate: rate,
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
  timeoutAfterCommitRate: 0,
  resetRate: 0,
  duplicateStatusUrlRate: 0,
  outOfOrderWebhookRate: 0,
};

/** What happens to one request: reset and error act before the handler, timeoutAfterCommit after it. */
export type RequestAction = "none" | "reset" | "error" | "timeoutAfterCommit";
export interface RequestFaults {
  readonly latencyMs: number;
  readonly action: RequestAction;
}

export type DeliveryFault = "duplicateStatusUrl" | "outOfOrderWebhook";

export type FaultKind = "latency" | Exclude<RequestAction, "none"> | DeliveryFault;
export type FaultCounts = Record<FaultKind | "requests", number>;

function emptyCounts(): FaultCounts {
  return {
    requests: 0,
    latency: 0,
    reset: 0,
    error: 0,
    timeoutAfterCommit: 0,
    duplicateStatusUrl: 0,
    outOfOrderWebhook: 0,
  };
}

const RATE_OF_DELIVERY_FAULT = {
  duplicateStatusUrl: "duplicateStatusUrlRate",
  outOfOrderWebhook: "outOfOrderWebhookRate",
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
    const [jitter, reset, error, timeout] = [random.next(), random.next(), random.next(), random.next()];
    const latencyMs = settings.latencyMs + Math.floor(jitter * (settings.latencyJitterMs + 1));
    const action: RequestAction =
      reset < settings.resetRate
        ? "reset"
        : error < settings.errorRate
          ? "error"
          : timeout < settings.timeoutAfterCommitRate
            ? "timeoutAfterCommit"
            : "none";
    this.#count(route, "requests");
    if (latencyMs > 0) this.#count(route, "latency");
    if (action !== "none") this.#count(route, action);
    return { latencyMs, action };
  }

  /** Whether this delivery meets `fault`; `route` is the request that caused it (none for clock-driven work). */
  decideDelivery(fault: DeliveryFault, route?: string): boolean {
    const hit =
      this.#stream(`${fault}:${route ?? ""}`).next() < this.settingsFor(route)[RATE_OF_DELIVERY_FAULT[fault]];
    if (hit) this.#count(route, fault);
    return hit;
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
