/** The AWS services whose SDK clients the functions use. */
export type SdkService = "dynamodb" | "sqs" | "secretsManager" | "eventBridge" | "sesv2" | "s3";

/** What every SDK client of a process is created with (undefined: the SDK's own resolution). */
export interface SdkClientConfig {
  readonly region?: string;
  readonly profile?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly endpoint?: string;
}

/**
 * Where SDK clients come from: one per service per process, created the first time something asks for it. Each
 * service's client is made by its own module (dynamodb-client.ts, sqs-client.ts, …), so a function whose code never
 * asks for a service neither bundles nor loads that service's SDK.
 */
export interface SdkClientHost {
  clientConfig(service: SdkService): SdkClientConfig;
  /** The host's client under `key`, created by `create` on first use; the host destroys SDK clients when it closes. */
  client<C extends object>(key: string, create: () => C): C;
}
