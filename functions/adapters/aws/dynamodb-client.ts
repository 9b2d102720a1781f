import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import type { SdkClientHost } from "./sdk-clients";

export interface DynamoDbClientOptions {
  /** Overrides AWS_ENDPOINT_URL_DYNAMODB (tests, local mode). */
  readonly endpoint?: string;
  /** Overrides AWS_REGION. */
  readonly region?: string;
  /** Overrides the default credential chain (emulators accept any value). */
  readonly credentials?: { readonly accessKeyId: string; readonly secretAccessKey: string };
}

/**
 * A DynamoDB document client. Without options the SDK's own resolution applies (AWS_REGION,
 * AWS_ENDPOINT_URL_DYNAMODB, the default credential chain), which is what a Lambda and local mode need. Optional
 * record fields are left out of items rather than written as undefined (which the marshaller would reject).
 */
export function createDynamoDbDocumentClient(options: DynamoDbClientOptions = {}): DynamoDBDocumentClient {
  return documentClientOf(
    new DynamoDBClient({
      endpoint: options.endpoint,
      region: options.region,
      credentials: options.credentials,
    }),
  );
}

/** The document client over a plain one (which Powertools' idempotency layer uses as it is). */
export function documentClientOf(client: DynamoDBClient): DynamoDBDocumentClient {
  return DynamoDBDocumentClient.from(client, { marshallOptions: { removeUndefinedValues: true } });
}

/** The host's plain DynamoDB client. */
export function dynamoDbClientOf(host: SdkClientHost): DynamoDBClient {
  return host.client("dynamodb", () => new DynamoDBClient(host.clientConfig("dynamodb")));
}

/** The host's document client, over its plain client. */
export function dynamoDbDocumentClientOf(host: SdkClientHost): DynamoDBDocumentClient {
  return host.client("dynamodb-document", () => documentClientOf(dynamoDbClientOf(host)));
}
