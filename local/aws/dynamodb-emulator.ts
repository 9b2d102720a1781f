import { randomUUID } from "node:crypto";
import { CreateTableCommand, ResourceInUseException, waitUntilTableExists } from "@aws-sdk/client-dynamodb";
import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import dynalite from "dynalite";
import { createDynamoDbDocumentClient } from "../../functions/adapters/aws/dynamodb-client";
import { billingTableDefinition } from "../../functions/adapters/table/billing-table";
import { listenOnLoopback } from "./loopback-server";

export const LOCAL_CREDENTIALS = { accessKeyId: "local", secretAccessKey: "local" } as const;
export const LOCAL_REGION = "us-east-1";

export interface LocalDynamoDb {
  /** e.g. http://127.0.0.1:54321 */
  readonly endpoint: string;
  readonly client: DynamoDBDocumentClient;
  /** Creates a billing table (a fresh name unless given; an existing one is kept) and returns its name. */
  createBillingTable(name?: string): Promise<string>;
  close(): Promise<void>;
}

/**
 * dynalite in this process on 127.0.0.1 and an ephemeral port, reached through the real SDK: in memory, or in the
 * LevelDB directory `path` (kept across restarts).
 */
export async function startDynalite(options: { readonly path?: string } = {}): Promise<LocalDynamoDb> {
  const server = dynalite({ createTableMs: 0, deleteTableMs: 0, updateTableMs: 0, path: options.path });
  const listening = await listenOnLoopback(server, "dynalite");
  return connectDynamoDb(listening.endpoint, listening.close);
}

/**
 * Any DynamoDB endpoint that takes the local credentials (dynalite, DynamoDB Local): `close` destroys the client and
 * then runs `stop` (nothing by default: a server started elsewhere is left running).
 */
export function connectDynamoDb(endpoint: string, stop: () => Promise<void> = async () => {}): LocalDynamoDb {
  // The SDK warns once per process that it will drop Node 20; Node 20 is what the machines have.
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
  const client = createDynamoDbDocumentClient({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  return {
    endpoint,
    client,
    async createBillingTable(name = `billing-${randomUUID()}`) {
      try {
        await client.send(new CreateTableCommand(billingTableDefinition(name)));
      } catch (error) {
        if (!(error instanceof ResourceInUseException)) throw error;
      }
      // A new table takes requests once ACTIVE: dynalite flips it on a timer, which a busy machine can delay.
      await waitUntilTableExists(
        { client, minDelay: 0.05, maxDelay: 0.5, maxWaitTime: 30 },
        { TableName: name },
      );
      return name;
    },
    async close() {
      client.destroy();
      await stop();
    },
  };
}
