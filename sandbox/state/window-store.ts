import { fail, type LedgerCore, ok, type StoreResult } from "./ledger-core";

export type WindowState = "open" | "completed";

/** A payment window prepared by ready, keyed by its fgkey. */
export interface WindowRecord {
  readonly fgkey: string;
  readonly mid: string;
  readonly orderId: string;
  /** The validated ready request, as the endpoint parsed it. */
  readonly request: unknown;
  readonly state: WindowState;
  readonly createdAt: string;
}

type MutableWindow = { -readonly [K in keyof WindowRecord]: WindowRecord[K] };

export class WindowStore {
  readonly #core: LedgerCore;
  readonly #byFgkey = new Map<string, MutableWindow>();

  constructor(core: LedgerCore) {
    this.#core = core;
  }

  /** Opens a window; a second window with the same fgkey (the same request again) replaces an open one. */
  open(
    input: { fgkey: string; mid: string; orderId: string; request: unknown },
    now: Date,
  ): StoreResult<WindowRecord, "window_completed"> {
    if (this.#byFgkey.get(input.fgkey)?.state === "completed") return fail("window_completed");
    const window: MutableWindow = {
      fgkey: input.fgkey,
      mid: input.mid,
      orderId: input.orderId,
      request: input.request,
      state: "open",
      createdAt: this.#core.stamp(now),
    };
    this.#byFgkey.set(input.fgkey, window);
    this.#core.bump();
    return ok(window);
  }

  find(fgkey: string): WindowRecord | undefined {
    return this.#byFgkey.get(fgkey);
  }

  /** The customer finished the window; a window completes once. */
  complete(fgkey: string): StoreResult<WindowRecord, "window_not_found" | "window_completed"> {
    const window = this.#byFgkey.get(fgkey);
    if (!window) return fail("window_not_found");
    if (window.state === "completed") return fail("window_completed");
    window.state = "completed";
    this.#core.bump();
    return ok(window);
  }

  all(): IterableIterator<WindowRecord> {
    return this.#byFgkey.values();
  }

  get size(): number {
    return this.#byFgkey.size;
  }
}
