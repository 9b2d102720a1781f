import { randomUUID } from "node:crypto";
import type { IncomingMessage, ServerResponse } from "node:http";
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
  /**
   * Calls `listener` after each write the emulator answered, whoever sent it; answers how to stop. Only for dynalite
   * in this process: an endpoint started elsewhere has none.
   */
  readonly onWrite?: (listener: () => void) => () => void;
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
  const listeners = new Set<() => void>();
  server.on("request", (request: IncomingMessage, response: ServerResponse) => {
    if (WRITE_TARGET.test(String(request.headers["x-amz-target"])))
      response.once("finish", () => {
        for (const listener of listeners) listener();
      });
  });
  const listening = await listenOnLoopback(server, "dynalite");
  return {
    ...connectDynamoDb(listening.endpoint, listening.close),
    onWrite(listener) {
      listeners.add(listener);
      return () => listeners.delete(listener);
    },
  };
}

/** The operations that write items (X-Amz-Target, e.g. DynamoDB_20120810.UpdateItem). */
const WRITE_TARGET = /\.(PutItem|UpdateItem|DeleteItem|BatchWriteItem|TransactWriteItems)$/;

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
