import {
  IdempotencyAlreadyInProgressError,
  IdempotencyConfig,
  IdempotencyValidationError,
  makeIdempotent,
} from "@aws-lambda-powertools/idempotency";
import { DynamoDBPersistenceLayer } from "@aws-lambda-powertools/idempotency/dynamodb";
import type { DynamoDBClient } from "@aws-sdk/client-dynamodb";
import {
  type IdempotencyStore,
  type IdempotentRequest,
  type StoredResponse,
  storedResponseSchema,
} from "../../core/ports/idempotency-store";
import { TTL_ATTRIBUTE } from "../table/billing-table";

/** Partition of the idempotency records in the billing table; the sort key is `merchant-api#<digest of the key>`. */
export const IDEMPOTENCY_PARTITION = "IDEMPOTENCY";
/** Shared by every merchant API function, so a key reused on another route meets its first use (a 409). */
const KEY_PREFIX = "merchant-api";

export interface DynamoDbIdempotencyStoreOptions {
  /** A plain DynamoDB client (Powertools marshals itself); not the document client. */
  readonly client: DynamoDBClient;
  readonly tableName: string;
  /** How long a response is answered again. Default 24 h. */
  readonly expiresAfterSeconds?: number;
  /**
   * How long a started request holds its key: a request that crashed frees it after this. Must exceed the API
   * functions' timeout (API Gateway gives up after 30 s). Default 60 s.
   */
  readonly inFlightMs?: number;
}

/**
 * The IdempotencyStore on Powertools idempotency with its DynamoDB persistence layer, in the billing table: pk
 * IDEMPOTENCY, sk the prefixed SHA-256 of the key, the request's digest as the validation hash, the kept response,
 * and `expires_at` — the table's TTL attribute — as the record's expiry. One static partition: DynamoDB splits it by
 * sort key as it heats up, and the keys are digests, so they spread.
 */
export function createDynamoDbIdempotencyStore(options: DynamoDbIdempotencyStoreOptions): IdempotencyStore {
  const persistenceStore = new DynamoDBPersistenceLayer({
    tableName: options.tableName,
    awsSdkV3Client: options.client,
    keyAttr: "pk",
    sortKeyAttr: "sk",
    staticPkValue: IDEMPOTENCY_PARTITION,
    expiryAttr: TTL_ATTRIBUTE,
  });
  const config = new IdempotencyConfig({
    eventKeyJmesPath: "key",
    payloadValidationJmesPath: "fingerprint",
    throwOnNoIdempotencyKey: true,
    hashFunction: "sha256",
    expiresAfterSeconds: options.expiresAfterSeconds ?? 24 * 60 * 60,
  });
  // Powertools takes the in-progress expiry from a Lambda context passed second: this one holds for inFlightMs.
  const inFlightMs = options.inFlightMs ?? 60_000;
  const lease = { getRemainingTimeInMillis: () => inFlightMs };
  const once = makeIdempotent(
    async (_request: IdempotentRequest, _lease: typeof lease, work: () => Promise<StoredResponse>) =>
      // A JSON copy: what is kept is exactly what is sent (no undefined fields, which DynamoDB cannot store).
      storedResponseSchema.parse(JSON.parse(JSON.stringify(await work()))),
    { persistenceStore, config, keyPrefix: KEY_PREFIX },
  );

  return {
    async run(request, work) {
      let ran = false;
      try {
        const response = await once(request, lease, () => {
          ran = true;
          return work();
        });
        return { kind: "completed", response: storedResponseSchema.parse(response), replayed: !ran };
      } catch (error) {
        if (error instanceof IdempotencyValidationError) return { kind: "mismatch" };
        if (error instanceof IdempotencyAlreadyInProgressError) return { kind: "in_progress" };
        throw error;
      }
    },
  };
}
