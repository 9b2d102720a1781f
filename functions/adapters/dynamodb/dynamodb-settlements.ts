import { GetCommand, PutCommand, QueryCommand } from "@aws-sdk/lib-dynamodb";
import {
  type PayoutDay,
  payoutDaySchema,
  type SettlementRecord,
  type SettlementStore,
  settlementRecordSchema,
} from "../../core/ports/settlement-store";
import {
  PAYOUT_PARTITION,
  payoutDayKey,
  recordOf,
  SETTLEMENT_SK_PREFIX,
  settlementKey,
} from "../table/billing-table";
import { batchGetItems, conditionally, type Item, type TableContext } from "../table/dynamodb-table";

// The gateway's payouts as reconciliation keeps them (billing-table.ts: settlement, payout day).

export function createDynamoDbSettlementStore(table: TableContext): SettlementStore {
  return {
    async recordSettlement(record) {
      const key = settlementKey(record.subscription_id, record.transaction_id);
      const written = await conditionally(() =>
        table.client.send(
          new PutCommand({
            TableName: table.tableName,
            Item: { ...settlementRecordSchema.parse(record), ...key },
            ConditionExpression: "attribute_not_exists(pk)",
          }),
        ),
      );
      if (written) return { recorded: true };
      const { Item } = await table.client.send(
        new GetCommand({ TableName: table.tableName, Key: key, ConsistentRead: true }),
      );
      const kept = settlementRecordSchema.parse(recordOf(Item ?? {}));
      return { recorded: false, remittance_date: kept.remittance_date };
    },

    async listSettlements(subscriptionId) {
      const { pk } = settlementKey(subscriptionId, "");
      const records: SettlementRecord[] = [];
      let start: Item | undefined;
      do {
        const answer = await table.client.send(
          new QueryCommand({
            TableName: table.tableName,
            KeyConditionExpression: "pk = :pk AND begins_with(sk, :prefix)",
            ExpressionAttributeValues: { ":pk": pk, ":prefix": SETTLEMENT_SK_PREFIX },
            ConsistentRead: true,
            ...(start === undefined ? {} : { ExclusiveStartKey: start }),
          }),
        );
        records.push(...(answer.Items ?? []).map((item) => settlementRecordSchema.parse(recordOf(item))));
        start = answer.LastEvaluatedKey;
      } while (start !== undefined);
      return records;
    },

    async settledTransactions(lines) {
      const keys = lines.map((line) => settlementKey(line.subscription_id, line.transaction_id));
      const items = await batchGetItems(table, keys, { projection: "sk" });
      return new Set(items.map((item) => String(item.sk).slice(SETTLEMENT_SK_PREFIX.length)));
    },

    async putPayoutDay(day) {
      const put = new PutCommand({
        TableName: table.tableName,
        Item: { ...payoutDaySchema.parse(day), ...payoutDayKey(day.remittance_date) },
        // A forecast never replaces the settlement it forecast.
        ...(day.status === "expected"
          ? {
              ConditionExpression: "attribute_not_exists(pk) OR #status = :expected",
              ExpressionAttributeNames: { "#status": "status" },
              ExpressionAttributeValues: { ":expected": "expected" },
            }
          : {}),
      });
      await conditionally(() => table.client.send(put));
    },

    async listPayoutDays(from, to) {
      const days: PayoutDay[] = [];
      let start: Item | undefined;
      do {
        const answer = await table.client.send(
          new QueryCommand({
            TableName: table.tableName,
            KeyConditionExpression: "pk = :pk AND sk BETWEEN :from AND :to",
            ExpressionAttributeValues: { ":pk": PAYOUT_PARTITION, ":from": from, ":to": to },
            ConsistentRead: true,
            ...(start === undefined ? {} : { ExclusiveStartKey: start }),
          }),
        );
        days.push(...(answer.Items ?? []).map((item) => payoutDaySchema.parse(recordOf(item))));
        start = answer.LastEvaluatedKey;
      } while (start !== undefined);
      return days;
    },
  };
}
