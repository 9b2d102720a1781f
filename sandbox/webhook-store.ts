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

  all(): IterableIterator<[mid: string, registration: WebhookRegistration]> {
    return this.#byMid.entries();
  }

  get size(): number {
    return this.#byMid.size;
  }
}
