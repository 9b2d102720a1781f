import { SQSClient } from "@aws-sdk/client-sqs";
import type { SdkClientHost } from "./sdk-clients";

export interface SqsClientOptions {
  /** Overrides AWS_ENDPOINT_URL_SQS (tests, local mode). */
  readonly endpoint?: string;
  /** Overrides AWS_REGION. */
  readonly region?: string;
  /** Overrides the default credential chain (emulators accept any value). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

/**
 * An SQS client. Without options the SDK's own resolution applies (AWS_REGION, AWS_ENDPOINT_URL_SQS, the default
 * credential chain), which is what a Lambda and local mode need; tests pass the emulator's endpoint explicitly.
 */
export function createSqsClient(options: SqsClientOptions = {}): SQSClient {
  return new SQSClient({
    endpoint: options.endpoint,
    region: options.region,
    credentials: options.credentials,
  });
}

/** The host's SQS client. */
export function sqsClientOf(host: SdkClientHost): SQSClient {
  return host.client("sqs", () => new SQSClient(host.clientConfig("sqs")));
}
