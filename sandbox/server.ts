import { setMaxListeners } from "node:events";
import { createServer, type ServerResponse } from "node:http";
import type { Acquirer } from "./acquirer/acquirer";
import type { CallbackForm } from "./acquirer/callback-forms";
import { Deliverer } from "./acquirer/deliveries";
import { adminRoutes } from "./api/admin-routes";
import { partnerRoutes } from "./api/partner-routes";
import { paymentRoutes } from "./api/payment-routes";
import { paymentSandboxRoutes } from "./api/payment-sandbox-routes";
import { paymentWindowRoutes } from "./api/payment-window";
import { reconciliationRoutes } from "./api/reconciliation-routes";
import { tokenBillingRoutes } from "./api/token-billing-routes";
import { webhookAdminRoutes } from "./api/webhook-admin-routes";
import { webhookTriggerRoutes } from "./api/webhook-trigger-routes";
import { type FaultConfigOrSettings, FaultInjector } from "./faults/faults";
import { createDispatcher } from "./http/dispatcher";
import { malformedHttpResponse, send } from "./http/http-wire";
import { rescodeStyle } from "./http/replies";
import { type RouteDefinition, RouteTable } from "./http/routes";
import { Ledger } from "./state/ledger";
import { type MerchantInput, MerchantRegistry, TEST_MERCHANT } from "./state/merchant-config";
import { SandboxClock } from "./time/clock";
import { KOREA_UTC_OFFSET_MINUTES } from "./time/gateway-calendar";

/** Routes every sandbox serves; the gateway's endpoints are added here (the sandbox's fuzz suite reads this list). */
export const BUILT_IN_ROUTES: readonly RouteDefinition[] = [
  ...adminRoutes,
  ...reconciliationRoutes,
  ...webhookAdminRoutes,
  ...webhookTriggerRoutes,
  ...partnerRoutes,
  ...paymentRoutes,
  ...tokenBillingRoutes,
  ...paymentSandboxRoutes,
  ...paymentWindowRoutes,
];

export const DEFAULT_SEED = 1;
export const DEFAULT_BODY_LIMIT_BYTES = 1024 * 1024;

export interface SandboxOptions {
  /** 0 (default) picks a free port. */
  readonly port?: number;
  readonly host?: string;
  /** Default: the test merchant only. */
  readonly merchants?: readonly MerchantInput[];
  /** Seed of every fault decision. */
  readonly seed?: number;
  readonly faults?: FaultConfigOrSettings;
  /** A clock to share (local mode); otherwise a new one starting at `start` (default real now). */
  readonly clock?: SandboxClock;
  readonly start?: Date;
  /** Extra routes (tests); the same as `addRoute` after start. */
  readonly routes?: readonly RouteDefinition[];
  readonly bodyLimitBytes?: number;
  /**
   * Zone of the gateway's timestamps and dates and of the webhook transmission time, minutes east of UTC; default
   * Korea's (+540), as the real gateway's.
   */
  readonly utcOffsetMinutes?: number;
  readonly deliveryTimeoutMs?: number;
  readonly webhookHeaderPrefix?: string;
  readonly deliveryLogLimit?: number;
  /** The form of status_url callbacks: the real gateway's by default (acquirer/callback-forms.ts). */
  readonly callbackForm?: CallbackForm;
}

export interface Sandbox {
  /** http://host:port, no trailing slash: the base URL of every API family. */
  readonly url: string;
  readonly port: number;
  readonly merchants: MerchantRegistry;
  readonly clock: SandboxClock;
  readonly faults: FaultInjector;
  /** The ledger (tests read it; endpoints change it). */
  readonly state: Ledger;
  /** Outbound calls and their log. */
  readonly deliveries: Deliverer;
  addRoute(route: RouteDefinition): void;
  /** Stops listening, ends held and open connections, aborts deliveries and cancels the sandbox's clock tasks. */
  close(): Promise<void>;
}

/** The acquirer every route of this sandbox shares: merchants, ledger, clock, faults and deliveries. */
function buildAcquirer(options: SandboxOptions): Acquirer {
  const clock = options.clock ?? new SandboxClock({ start: options.start });
  const scheduler = clock.scope();
  const faults = new FaultInjector(options.seed ?? DEFAULT_SEED, options.faults);
  const merchants = new MerchantRegistry(options.merchants ?? [TEST_MERCHANT]);
  const utcOffsetMinutes = options.utcOffsetMinutes ?? KOREA_UTC_OFFSET_MINUTES;
  const ledger = new Ledger({ utcOffsetMinutes });
  const deliveries = new Deliverer({
    clock,
    scheduler,
    faults,
    timeoutMs: options.deliveryTimeoutMs,
    headerPrefix: options.webhookHeaderPrefix,
    utcOffsetMinutes,
    logLimit: options.deliveryLogLimit,
  });
  return { merchants, ledger, clock, scheduler, deliveries, faults };
}

/** Starts the sandbox gateway on node:http; resolves once it listens. */
export async function startSandbox(options: SandboxOptions = {}): Promise<Sandbox> {
  const acquirer = buildAcquirer(options);
  const { merchants, ledger, clock, scheduler, deliveries, faults } = acquirer;
  const table = new RouteTable();
  for (const route of [...BUILT_IN_ROUTES, ...(options.routes ?? [])]) table.add(route);
  const lifetime = new AbortController();
  // Every delayed request listens on this signal at once: under load that is far more than Node's warning level.
  setMaxListeners(0, lifetime.signal);
  const held = new Set<ServerResponse>();
  const dispatch = createDispatcher({
    table,
    acquirer,
    callbackForm: options.callbackForm ?? "real",
    bodyLimitBytes: options.bodyLimitBytes ?? DEFAULT_BODY_LIMIT_BYTES,
    lifetime: lifetime.signal,
    held,
  });

  const server = createServer((req, res) => {
    req.on("error", () => undefined); // a client that vanishes mid-body is not our error
    dispatch(req, res).catch(() => {
      // Only a bug of the dispatcher lands here; answer if still possible, never crash.
      if (!res.headersSent) send(res, rescodeStyle.internal());
      else res.destroy();
    });
  });
  server.on("clientError", (error, socket) => {
    if (!socket.writable) {
      socket.destroy();
      return;
    }
    socket.end(malformedHttpResponse(error));
  });

  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(options.port ?? 0, options.host ?? "127.0.0.1", () => {
      server.off("error", reject);
      resolve();
    });
  });
  const address = server.address();
  if (address === null || typeof address === "string") throw new Error("sandbox is not listening on TCP");
  const host = options.host ?? "127.0.0.1";

  let closing: Promise<void> | undefined;
  return {
    url: `http://${host.includes(":") ? `[${host}]` : host}:${address.port}`,
    port: address.port,
    merchants,
    clock,
    faults,
    state: ledger,
    deliveries,
    addRoute: (route) => table.add(route),
    close() {
      closing ??= (async () => {
        lifetime.abort();
        scheduler.cancelAll();
        deliveries.close();
        const closed = new Promise<void>((resolve) => server.close(() => resolve()));
        for (const res of held) res.socket?.destroy();
        server.closeAllConnections();
        await closed;
        await deliveries.settled();
      })();
      return closing;
    },
  };
}
