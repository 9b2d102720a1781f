import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createDynamoDbBillingRepository } from "../../../functions/adapters/dynamodb/dynamodb-billing-repository";
import { createDynamoDbLedgerReader } from "../../../functions/adapters/dynamodb/dynamodb-ledger-reader";
import type { ChargeAttempt, RefundRecord } from "../../../functions/core/base/model";
import type { BillingRepository } from "../../../functions/core/ports/billing-repository";
import type { LedgerEntry, LedgerReader } from "../../../functions/core/refunds/reconciliation";
import type { LocalDynamoDb } from "../../../local/aws/dynamodb-emulator";
import { attempt } from "../../support/billing-repository-contract";
import { startTestDynamoDb } from "../../support/test-dynamodb";

/*
 * The ledger index (succeeded charges and refunds by the day they succeeded), on dynalite (or DynamoDB Local)
 * through the real SDK.
 */

let db: LocalDynamoDb;
let repository: BillingRepository;
let ledger: LedgerReader;

beforeAll(async () => {
  db = await startTestDynamoDb();
  const tableName = await db.createBillingTable();
  repository = createDynamoDbBillingRepository({ client: db.client, tableName });
  ledger = createDynamoDbLedgerReader({ client: db.client, tableName });
});
afterAll(() => db.close());

/** Period 1's first attempt of a subscription, claimed on 2030-03-01. */
const attemptOf = (subscriptionId: string, overrides: Partial<ChargeAttempt> = {}): ChargeAttempt =>
  attempt(
    { subscription_id: subscriptionId, period: 1, attempt: 0 },
    {
      lease_until: "2030-03-01T00:05:00.000Z",
      created_at: "2030-03-01T00:00:00.000Z",
      updated_at: "2030-03-01T00:00:00.000Z",
      ...overrides,
    },
  );

async function listed(from: string, to: string): Promise<LedgerEntry[]> {
  const entries: LedgerEntry[] = [];
  for await (const page of ledger.listLedger(new Date(from), new Date(to))) entries.push(...page);
  return entries;
}

const idsOf = (entries: readonly LedgerEntry[]) =>
  entries.map((entry) => (entry.kind === "charge" ? entry.attempt.order_id : entry.refund.refund_id)).sort();

describe("the ledger index", () => {
  it("lists a charge from the write that made it succeeded, on that day only; open or declined ones never", async () => {
    const succeeded = attemptOf("sub_ledger_a");
    const declined = attemptOf("sub_ledger_b");
    await repository.claimAttempt(succeeded);
    await repository.claimAttempt(declined);
    expect(await listed("2030-03-01T00:00:00Z", "2030-03-02T23:59:59Z")).toEqual([]);
    const whilePending = { status: "pending" as const, lease_until: succeeded.lease_until };
    await repository.updateAttempt(succeeded, {
      expect: whilePending,
      set: { status: "succeeded", transaction_id: "T1", updated_at: "2030-03-01T23:59:59.000Z" },
      remove: ["lease_until"],
    });
    await repository.updateAttempt(declined, {
      expect: whilePending,
      set: { status: "declined", updated_at: "2030-03-01T12:00:00.000Z" },
      remove: ["lease_until"],
    });
    const entries = await listed("2030-03-01T00:00:00Z", "2030-03-01T23:59:59.999Z");
    expect(entries).toEqual([
      {
        kind: "charge",
        at: "2030-03-01T23:59:59.000Z",
        attempt: expect.objectContaining({
          order_id: succeeded.order_id,
          status: "succeeded",
          transaction_id: "T1",
        }),
      },
    ]);
    // Key attributes of the table and its indexes never reach the record.
    expect(Object.keys(entries[0]?.kind === "charge" ? entries[0].attempt : {})).not.toContain("ledger_pk");
    expect(await listed("2030-03-02T00:00:00Z", "2030-03-02T23:59:59Z")).toEqual([]);
  });

  it("lists a charge claimed as succeeded (a gateway-run recurring charge) and a succeeded refund", async () => {
    const recurring = attemptOf("sub_ledger_c", {
      order_id: "RC0001-1",
      status: "succeeded",
      lease_until: undefined,
      updated_at: "2030-03-05T03:00:00.000Z",
    });
    await repository.claimAttempt(recurring);
    const refund: RefundRecord = {
      refund_id: "rf_ledger_1",
      subscription_id: "sub_ledger_c",
      order_id: "RC0001-1",
      period: 1,
      attempt: 0,
      amount: "5.00",
      currency: "USD",
      reason: "goodwill",
      status: "pending",
      created_at: "2030-03-05T04:00:00.000Z",
      updated_at: "2030-03-05T04:00:00.000Z",
    };
    await repository.createRefund(refund);
    expect(idsOf(await listed("2030-03-05T00:00:00Z", "2030-03-05T23:59:59Z"))).toEqual(["RC0001-1"]);
    await repository.updateRefund(refund.refund_id, {
      expect: { status: "pending" },
      set: { status: "succeeded", refund_transaction_id: "R1", updated_at: "2030-03-05T04:00:01.000Z" },
    });
    expect(idsOf(await listed("2030-03-05T00:00:00Z", "2030-03-05T23:59:59Z"))).toEqual([
      "RC0001-1",
      "rf_ledger_1",
    ]);
    // The time bounds hold within a day, too.
    expect(idsOf(await listed("2030-03-05T03:30:00Z", "2030-03-05T23:59:59Z"))).toEqual(["rf_ledger_1"]);
  });
});
