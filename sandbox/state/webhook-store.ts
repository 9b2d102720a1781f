import type { LedgerCore } from "./ledger-core";

/** A merchant's gateway webhook (seed 001): one URL and the registered types. */
export interface WebhookRegistration {
  readonly url: string;
  readonly types: readonly string[];
}

/** Webhook registrations of the webhook management API, one per merchant. */
export class WebhookStore {
  readonly #core: LedgerCore;
  readonly #byMid = new Map<string, WebhookRegistration>();
  /** CHARGEBACK URLs: set through the gateway's support, never through the API (seed 001). */
  readonly #chargebackUrls = new Map<string, string>();

  constructor(core: LedgerCore) {
    this.#core = core;
  }

  /** register: sets the URL and adds the type to the registered ones. */
  register(mid: string, url: string, type: string): WebhookRegistration {
    const types = this.#byMid.get(mid)?.types ?? [];
    const registration = { url, types: types.includes(type) ? types : [...types, type] };
    this.#byMid.set(mid, registration);
    this.#core.bump();
    return registration;
  }

  /** info: undefined when nothing is configured (the API answers data null). */
  find(mid: string): WebhookRegistration | undefined {
    return this.#byMid.get(mid);
  }

  /** Where CHARGEBACK webhooks of a merchant go (a sandbox-only control stands in for the support desk). */
  setChargebackUrl(mid: string, url: string): void {
    this.#chargebackUrls.set(mid, url);
    this.#core.bump();
  }

  chargebackUrl(mid: string): string | undefined {
    return this.#chargebackUrls.get(mid);
  }

  all(): IterableIterator<[mid: string, registration: WebhookRegistration]> {
    return this.#byMid.entries();
  }

  get size(): number {
    return this.#byMid.size;
  }
}
