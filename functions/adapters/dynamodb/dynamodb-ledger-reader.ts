import type { DynamoDBDocumentClient } from "@aws-sdk/lib-dynamodb";
import { ledgerChargeSchema, ledgerRefundSchema } from "../../core/base/model";
import type { LedgerEntry, LedgerReader } from "../../core/refunds/reconciliation";
import {
  ATTEMPT_SK_PREFIX,
  DEFAULT_SHARDS,
  LEDGER_INDEX,
  ledgerPartition,
  recordOf,
  utcIso,
} from "../table/billing-table";
import { type Item, queryPages } from "../table/dynamodb-table";

export interface DynamoDbLedgerReaderOptions {
  readonly client: DynamoDBDocumentClient;
  readonly tableName: string;
  /** The table's index shards (the repository's; default 16). */
  readonly shards?: number;
  /** Items per Query page. Default 100. */
  readonly pageSize?: number;
}

const DAY_MS = 86_400_000;

function entryOf(item: Item): LedgerEntry {
  const record = recordOf(item);
  const at = String(item.ledger_sk).split("#")[0] ?? "";
  return String(item.sk).startsWith(ATTEMPT_SK_PREFIX)
    ? { kind: "charge", at, attempt: ledgerChargeSchema.parse(record) }
    : { kind: "refund", at, refund: ledgerRefundSchema.parse(record) };
}

/**
 * The ledger index (billing-table.ts): succeeded charges and refunds by the day they succeeded. One Query per day
 * and shard, never a Scan; the index is eventually consistent, which a daily run over past days does not notice.
 */
export function createDynamoDbLedgerReader(options: DynamoDbLedgerReaderOptions): LedgerReader {
  const shards = options.shards ?? DEFAULT_SHARDS;
  return {
    async *listLedger(from, to) {
      const range = { ":from": utcIso(from), ":to": `${utcIso(to)}#\uffff` };
      // Day by day, the shards of a day side by side: a month's run never has hundreds of queries in flight.
      for (let day = Math.floor(from.getTime() / DAY_MS); day * DAY_MS <= to.getTime(); day += 1) {
        const queries = Array.from({ length: shards }, (_, shard) => ({
          TableName: options.tableName,
          IndexName: LEDGER_INDEX,
          KeyConditionExpression: "#pk = :pk AND #sk BETWEEN :from AND :to",
          ExpressionAttributeNames: { "#pk": "ledger_pk", "#sk": "ledger_sk" },
          ExpressionAttributeValues: { ":pk": ledgerPartition(new Date(day * DAY_MS), shard), ...range },
          Limit: options.pageSize ?? 100,
        }));
        for await (const items of queryPages(options.client, queries)) yield items.map(entryOf);
      }
    },
  };
}
