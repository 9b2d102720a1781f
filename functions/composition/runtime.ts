import type { SdkClientHost, SdkService } from "../adapters/aws/sdk-clients";
import type { Clock } from "../core/ports/clock";
import type { FetchLike } from "../gateway/transport";

/** Where the SDK clients go when not by the SDK's own resolution (local mode, the ops CLI). */
export interface RuntimeOptions {
  readonly region?: string;
  /** A named profile of the operator's AWS configuration (the ops CLI). */
  readonly profile?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly endpoints?: Partial<Record<SdkService, string>>;
  /** Local mode's shared clock; the system clock otherwise. */
  readonly clock?: Clock;
  readonly fetchImpl?: FetchLike;
}

/**
 * What a process brings to the composition: its SDK clients (each made on first use by its service's module, e.g.
 * dynamoDbDocumentClientOf(runtime)), the clock, fetch.
 */
export interface Runtime extends SdkClientHost {
  readonly clock: Clock;
  readonly fetchImpl?: FetchLike;
  /** Closes the SDK clients' sockets. */
  close(): void;
}

/**
 * The runtime of a process. Without options the SDK resolves region, credentials and endpoints itself (AWS_REGION,
 * the credential chain): what a Lambda container needs.
 */
export function createRuntime(options: RuntimeOptions = {}): Runtime {
  const { region, profile, credentials, endpoints = {} } = options;
  const clients = new Map<string, object>();
  return {
    clientConfig: (service) => ({ region, profile, credentials, endpoint: endpoints[service] }),
    client<C extends object>(key: string, create: () => C): C {
      const existing = clients.get(key);
      if (existing !== undefined) return existing as C;
      const created = create();
      clients.set(key, created);
      return created;
    },
    clock: options.clock ?? { now: () => new Date() },
    fetchImpl: options.fetchImpl,
    close() {
      for (const client of clients.values()) {
        if ("destroy" in client && typeof client.destroy === "function") client.destroy();
      }
    },
  };
}
