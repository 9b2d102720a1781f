import { getSecret } from "@aws-lambda-powertools/parameters/secrets";
import { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { createDynamoDbBillingRepository } from "../adapters/dynamodb-billing-repository";
import { createDynamoDbDocumentClient } from "../adapters/dynamodb-client";
import { createDynamoDbIdempotencyStore } from "../adapters/dynamodb-idempotency-store";
import { apiKeyHashesSecretSchema } from "../api/api-key";
import type { IdempotencyServices, IdempotencyStore } from "../api/idempotency";
import type { ChargeListDeps } from "../core/charge-list";
import { authorizerEnvironment, loadEnvironment, queryEnvironment } from "./environment";
import { tracer } from "./observability";
import { getBillingServices, memoised, type RuntimeServices } from "./services-from-env";

// The merchant API functions' services, built from their environment once per container (DESIGN.md §8).

/** The POST handlers: the whole billing core and the idempotency store on the billing table. */
export type MerchantApiServices = RuntimeServices & IdempotencyServices;

/** The GET handlers: the billing table only. */
export type QueryServices = ChargeListDeps;

export interface AuthorizerServices {
  /** The SHA-256 digests of the valid API keys. */
  apiKeyDigests(): Promise<readonly string[]>;
}

/** How long the API key digests are cached: a rotation shows within this. */
export const API_KEY_SECRET_MAX_AGE_SECONDS = 300;

let clients: { readonly dynamo: DynamoDBClient; readonly document: DynamoDBDocumentClient } | undefined;
const sdkClients = () => {
  clients ??= {
    dynamo: tracer.captureAWSv3Client(new DynamoDBClient({})),
    document: tracer.captureAWSv3Client(createDynamoDbDocumentClient()),
  };
  return clients;
};

const idempotency = memoised(
  (): IdempotencyStore =>
    createDynamoDbIdempotencyStore({
      client: sdkClients().dynamo,
      tableName: loadEnvironment(queryEnvironment).TABLE_NAME,
    }),
);

const queries = memoised(
  (): QueryServices => ({
    repository: createDynamoDbBillingRepository({
      client: sdkClients().document,
      tableName: loadEnvironment(queryEnvironment).TABLE_NAME,
    }),
  }),
);

/** Reads the digests (Powertools getSecret, cached); the secret's text never reaches an error. */
export async function readApiKeyDigests(secretId: string): Promise<readonly string[]> {
  const text = await getSecret(secretId, { maxAge: API_KEY_SECRET_MAX_AGE_SECONDS });
  let value: unknown;
  try {
    value = typeof text === "string" ? JSON.parse(text) : undefined;
  } catch {
    value = undefined;
  }
  const parsed = apiKeyHashesSecretSchema.safeParse(value, { reportInput: false });
  if (!parsed.success) throw new Error(`API key secret ${secretId} is not {"sha256": [<hex digest>, …]}`);
  return parsed.data;
}

const authorizer = memoised((): AuthorizerServices => {
  const { MERCHANT_API_KEY_HASH_SECRET_ARN: secretId } = loadEnvironment(authorizerEnvironment);
  return { apiKeyDigests: () => readApiKeyDigests(secretId) };
});

/** Variables: billingEnvironment. */
export const getMerchantApiServices = async (): Promise<MerchantApiServices> => ({
  ...(await getBillingServices()),
  idempotency: await idempotency.get(),
});
/** Variables: queryEnvironment (TABLE_NAME). */
export const getQueryServices = (): Promise<QueryServices> => queries.get();
/** Variables: authorizerEnvironment (MERCHANT_API_KEY_HASH_SECRET_ARN). */
export const getAuthorizerServices = (): Promise<AuthorizerServices> => authorizer.get();

/** Forgets what was built and the SDK clients (tests change process.env between cases); see resetServices. */
export function resetMerchantApiServices(): void {
  for (const memo of [idempotency, queries, authorizer]) memo.reset();
  if (clients === undefined) return;
  clients.dynamo.destroy();
  clients.document.destroy();
  clients = undefined;
}
