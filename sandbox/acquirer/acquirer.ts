import type { FaultInjector } from "../faults/faults";
import type { Ledger } from "../state/ledger";
import type { MerchantRegistry } from "../state/merchant-config";
import type { ClockScope, SandboxClock } from "../time/clock";
import type { Deliverer, RouteDeliverer } from "./deliveries";

// What the acquirer works with. The http room builds one Acquirer per sandbox (http/server.ts) and hands each
// request's handler an AcquirerContext (its RouteContext); the domain takes that context and never sees the wire.

/** The gateway's state and machinery every request shares: merchants, ledger, clock, faults and deliveries. */
export interface Acquirer {
  readonly merchants: MerchantRegistry;
  readonly ledger: Ledger;
  readonly clock: SandboxClock;
  /** Schedules on the sandbox clock; cancelled when the sandbox closes. */
  readonly scheduler: ClockScope;
  /** The delivery log and its controls. */
  readonly deliveries: Deliverer;
  readonly faults: FaultInjector;
}

/** The acquirer as one request acts on it: its outbound calls carry that request's delivery faults. */
export interface AcquirerContext extends Acquirer {
  /** Outbound calls to merchant URLs, with this route's delivery faults. */
  readonly deliver: RouteDeliverer;
}
