import * as z from "zod";
import { COMPONENT_VARIABLES, type ComponentName } from "./components";
import type { Composition } from "./compose";

/**
 * What one kind of function needs, as a typed pick of the composition: the build sees only the components it names,
 * so the set's environment (and, in lib/function-table.ts, its CDK binds and grants) follows from those names.
 */
export interface ServiceSet<S> {
  readonly components: readonly ComponentName[];
  /** The variables the set reads: the union of its components' variables. */
  readonly environment: z.ZodObject;
  /** The services over a composition (built components are reused; a secret is re-read when its age runs out). */
  from(composition: Composition): Promise<S>;
}

function serviceSet<const N extends ComponentName, S>(
  components: readonly N[],
  build: (composition: Pick<Composition, N>) => S | Promise<S>,
): ServiceSet<S> {
  const environment = z.object(
    Object.assign({}, ...components.map((name) => COMPONENT_VARIABLES[name].shape)),
  );
  return {
    components,
    environment,
    from: async (composition) => {
      // Every missing variable named at once, before any component is built.
      composition.check(environment);
      return build(composition);
    },
  };
}

/** A set and some more components: the base set's services, plus what `add` builds from the extra ones. */
function extended<B, const N extends ComponentName, E>(
  base: ServiceSet<B>,
  extra: readonly N[],
  add: (composition: Pick<Composition, N>) => E,
): ServiceSet<B & E> {
  return serviceSet([...base.components, ...extra], async (composition) => ({
    // Built from the whole composition: the base set's components are among this set's.
    ...(await base.from(composition as Composition)),
    ...add(composition),
  }));
}

/** The billing core without the charge queue: what charges, signs up and takes in results. */
const core = serviceSet(["repository", "gateway", "webhookUrls", "policy", "ids", "clock"], async (c) => {
  const gateway = await c.gateway();
  return {
    repository: c.repository(),
    gateway: gateway.payments,
    gatewayClient: gateway.client,
    policy: c.policy(),
    ids: c.ids(),
    clock: c.clock,
    ...c.webhookUrls(),
  };
});

/** The core and the charge queue it hands work back to (the attempt sweep, plan changes and cancellations). */
const billing = extended(core, ["chargeQueue"], (c) => ({ queue: c.chargeQueue() }));

/** Every service set, by the name lib/function-table.ts gives each function. */
export const SERVICE_SETS = {
  /** get-openapi: nothing. */
  none: serviceSet([], () => ({})),
  /** The charge run: the due index and the queue, nothing of the gateway. */
  chargeRun: serviceSet(["repository", "chargeQueue", "clock"], (c) => ({
    repository: c.repository(),
    queue: c.chargeQueue(),
    clock: c.clock,
  })),
  /** The core and the charge queue: the attempt sweep (and the core services of local mode and the tests). */
  billing,
  /** The charge worker: the core, and the queue whose records it changes the visibility of. */
  chargeWorker: extended(core, ["chargeQueueConsumer"], (c) => ({ consumer: c.chargeQueueConsumer() })),
  /** The merchant API's sign-ups, charges and refunds: the core and the idempotency records. */
  merchantApi: extended(core, ["idempotency"], (c) => ({ idempotency: c.idempotency() })),
  /** The merchant API's plan changes and cancellations: these also hand work to the charge queue. */
  merchantApiChanges: extended(billing, ["idempotency"], (c) => ({ idempotency: c.idempotency() })),
  /** publish-events and sweep-outbox: the outboxes and the bus they are delivered to. */
  eventDelivery: serviceSet(["repository", "events", "clock"], async (c) => ({
    repository: c.repository(),
    events: await c.events(),
    clock: c.clock,
  })),
  /** The merchant API's reads: the table only. */
  queries: serviceSet(["readRepository"], (c) => ({ repository: c.readRepository() })),
  /** get-receipt: the ledger read, and the gateway asked for the receipt page. */
  receipts: serviceSet(["readRepository", "gateway"], async (c) => ({
    repository: c.readRepository(),
    gateway: (await c.gateway()).payments,
  })),
  /** The merchant API's authorizer. */
  authorizer: serviceSet(["apiKeyDigests"], (c) => ({ apiKeyDigests: c.apiKeyDigests() })),
  /** receive-status-callback, receive-partner-event, receive-recurring-notice: the intake queue only. */
  intakeReceiver: serviceSet(["intakeQueue", "clock"], (c) => ({ queue: c.intakeQueue(), clock: c.clock })),
  /** receive-gateway-webhook: the queue, the webhook secrets and the table (de-duplication records). */
  gatewayWebhook: serviceSet(["intakeQueue", "repository", "webhookSecrets", "clock"], (c) => ({
    queue: c.intakeQueue(),
    repository: c.repository(),
    clock: c.clock,
    ...c.webhookSecrets(),
  })),
  /** process-intake: the core, and its own queue (retries change the message visibility). */
  intakeWorker: extended(core, ["intakeQueueConsumer"], (c) => ({ consumer: c.intakeQueueConsumer() })),
  /** reconcile-ledger: the reconciliation API and the ledger index. */
  reconciliation: serviceSet(["gatewayTransactions", "ledger", "readRepository", "clock"], async (c) => {
    const reconciliation = await c.gatewayTransactions();
    return {
      transactions: (from: string, to: string) => reconciliation.transactions(from, to),
      ledger: c.ledger(),
      repository: c.readRepository(),
      clock: c.clock,
    };
  }),
  /** register-partner-webhook: the partner API and our public receiver. */
  partnerWebhook: serviceSet(["partnerWebhooks", "webhookUrls"], async (c) => ({
    partner: await c.partnerWebhooks(),
    endpointUrl: c.webhookUrls().partnerEndpointUrl,
  })),
  /** refresh-partner-token: the only writer of the partner JWT's secret. */
  partnerToken: serviceSet(["partnerTokenRefresher", "clock"], async (c) => ({
    ...(await c.partnerTokenRefresher()),
    clock: c.clock,
  })),
};

export type ServiceSetName = keyof typeof SERVICE_SETS;
/** The services a set builds. */
export type ServicesOf<N extends ServiceSetName> =
  (typeof SERVICE_SETS)[N] extends ServiceSet<infer S> ? S : never;
