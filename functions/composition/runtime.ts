import { SecretsProvider } from "@aws-lambda-powertools/parameters/secrets";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { EventBridgeClient } from "@aws-sdk/client-eventbridge";
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { SQSClient } from "@aws-sdk/client-sqs";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { documentClientOf } from "../adapters/dynamodb-client";
import type { Clock } from "../core/ports";
import type { FetchLike } from "../gateway/transport";

/** Where the SDK clients go when not by the SDK's own resolution (local mode, the ops CLI). */
export interface RuntimeOptions {
  readonly region?: string;
  /** A named profile of the operator's AWS configuration (the ops CLI). */
  readonly profile?: string;
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
  readonly endpoints?: {
    readonly dynamodb?: string;
    readonly sqs?: string;
    readonly secretsManager?: string;
    readonly eventBridge?: string;
  };
  /** Local mode's shared clock; the system clock otherwise. */
  readonly clock?: Clock;
  readonly fetchImpl?: FetchLike;
}

/** What a process brings to the composition: SDK clients, the secret reader, the clock, fetch. */
export interface Runtime {
  /** The plain client (Powertools' idempotency layer marshals itself). */
  readonly dynamoClient: DynamoDBClient;
  /** The document client over it (documentClientOf). */
  readonly dynamo: DynamoDBDocumentClient;
  readonly sqs: SQSClient;
  /** Created on first use: only event delivery publishes, so no other function loads the EventBridge SDK. */
  eventBridge(): Promise<EventBridgeClient>;
  readonly secretsManager: SecretsManagerClient;
  /** Powertools' secret reader (its cache is this runtime's). */
  readonly secrets: SecretsProvider;
  readonly clock: Clock;
  readonly fetchImpl?: FetchLike;
  /** Closes the SDK clients' sockets. */
  close(): void;
}

/**
 * SDK clients and the clock. Without options the SDK resolves region, credentials and
 * endpoints itself (AWS_REGION, the credential chain): what a Lambda container needs.
 */
export function createRuntime(options: RuntimeOptions = {}): Runtime {
  const { region, profile, credentials, endpoints = {} } = options;
  const config = (endpoint: string | undefined) => ({ region, profile, credentials, endpoint });
  const dynamoClient = new DynamoDBClient(config(endpoints.dynamodb));
  const dynamo = documentClientOf(dynamoClient);
  const sqs = new SQSClient(config(endpoints.sqs));
  const secretsManager = new SecretsManagerClient(config(endpoints.secretsManager));
  let eventBridge: EventBridgeClient | undefined;
  return {
    dynamoClient,
    dynamo,
    sqs,
    async eventBridge() {
      if (eventBridge === undefined) {
        const sdk = await import("@aws-sdk/client-eventbridge");
        eventBridge ??= new sdk.EventBridgeClient(config(endpoints.eventBridge));
      }
      return eventBridge;
    },
    secretsManager,
    secrets: new SecretsProvider({ awsSdkV3Client: secretsManager }),
    clock: options.clock ?? { now: () => new Date() },
    fetchImpl: options.fetchImpl,
    close() {
      for (const client of [dynamo, dynamoClient, sqs, eventBridge, secretsManager]) client?.destroy();
    },
  };
}
