import { setTimeout as sleep } from "node:timers/promises";
import { PutCommand } from "@aws-sdk/lib-dynamodb";
import { z } from "zod";
import { dynamoDbDocumentClientOf } from "../functions/adapters/aws/dynamodb-client";
import { createSqsChargeQueue } from "../functions/adapters/aws/sqs-charge-queue";
import { sqsClientOf } from "../functions/adapters/aws/sqs-client";
import { deleteBatch } from "../functions/adapters/aws/sqs-poller";
import { billingTableDefinition } from "../functions/adapters/table/billing-table";
import { SETTLEMENT_DELAY_DAYS, SETTLEMENT_GRACE_DAYS } from "../functions/core/refunds/settlements";
import { gatewayDate, gatewayDayStart, shiftGatewayDate } from "../functions/gateway/calendar";
import { mapConcurrently } from "../functions/shared/map-concurrently";
import {
  type CapacityMeter,
  countDynamoRequests,
  countSqsRequests,
  type IndexWriteMeter,
  meterDynamoCapacity,
  meterIndexWrites,
  type RequestCounter,
} from "../local/aws/sdk-request-counter";
import { approximateMessageCount, drainQueue } from "../local/aws/sqs-emulator";
import { MerchantClient } from "../local/clients/merchant-client";
import { scheduledEvent } from "../local/lambda/lambda-context";
import type { LocalStack } from "../local/stack/local-stack";
import { LineProcess } from "./line-process";

// The charge path of local mode measured end to end: subscriptions signed up through local mode's merchant
// API (POST /v1/subscriptions over HTTP, the sandbox's non-ui payment), made due by a direct repository write
// (no clock jump, so no other schedule fires inside the measurement), then the real run-charges handler fans
// them out and process-charges, behind local/stack/local-stack's SQS event source mapping, charges them. Everything
// (handlers, dynalite, local-aws-sqs, the sandbox) shares this one process.

const START = new Date("2027-03-01T09:00:00.000Z");
const SIGNUP_CONCURRENCY = 16;

export interface ChargeRunMeasure {
  /** Subscriptions whose period advanced (charged) in this run. */
  readonly charged: number;
  readonly due: number;
  readonly seconds: number;
  /** CPU time of this whole process over the run (user + system). */
  readonly cpuMs: number;
  /** CPU time of the worker's own process over the run (with `workerProcess` only). */
  readonly workerCpuMs?: number;
  /** AWS requests over the run by command name: the handlers' clients and the event source mapping's. */
  readonly dynamo: Readonly<Record<string, number>>;
  readonly sqs: Readonly<Record<string, number>>;
  /** Table capacity units DynamoDB (dynalite) reported for the handlers' requests. */
  readonly capacity: { readonly read: number; readonly write: number };
  /** Index write units of the handlers' writes, by index (with `meterIndexes` only). */
  readonly indexUnits: Readonly<Record<string, number>>;
}

/** What reconciling the days that pay the charges out cost (reconcile-ledger), per movement it compared. */
export interface ReconcileMeasure {
  /** Gateway records compared: the sign-ups' sales and the renewals'. */
  readonly movements: number;
  readonly payouts: number;
  readonly mismatches: number;
  readonly dynamo: Readonly<Record<string, number>>;
  readonly capacity: { readonly read: number; readonly write: number };
  readonly indexUnits: Readonly<Record<string, number>>;
}

/** What the bench reads of reconcile-ledger's report. */
const reconciled = z.object({
  gateway_records: z.number(),
  mismatches: z.array(z.unknown()),
  payouts: z.array(z.unknown()).default([]),
  settlement_mismatches: z.array(z.unknown()).default([]),
});

/** What delivering the outboxes a charge run filled cost (the table's stream and publish-events on AWS). */
export interface DeliveryMeasure {
  readonly events: number;
  readonly dynamo: Readonly<Record<string, number>>;
  readonly capacity: { readonly read: number; readonly write: number };
  readonly indexUnits: Readonly<Record<string, number>>;
}

const log = (message: string) => console.error(`  ${message}`);

/** The code of the coupon a bench with coupons redeems. */
const BENCH_COUPON = "BENCH10";

/** What the bench reads of a sign-up's answer (201: active, its first period paid). */
const signedUp = z.object({ subscription_id: z.string() });

/** Handlers log and publish metrics to stdout; the table is printed there. Read when their modules load. */
export function quietHandlers(): void {
  process.env.POWERTOOLS_LOG_LEVEL = "SILENT";
  process.env.POWERTOOLS_METRICS_DISABLED = "true";
}

export class ChargeBench {
  private constructor(
    readonly local: LocalStack,
    private readonly ids: readonly string[],
    private readonly meters: {
      readonly dynamo: RequestCounter;
      readonly capacity: CapacityMeter;
      readonly sqs: RequestCounter;
      readonly mappingSqs: RequestCounter;
      readonly indexes?: IndexWriteMeter;
    },
    private readonly worker?: LineProcess,
  ) {}

  /** A local stack with `subscriptions` active monthly token subscriptions (half Visa, half Mastercard test cards). */
  static async start(options: {
    readonly subscriptions: number;
    /** Batches in flight and records per batch (each batch's records are charged side by side). */
    readonly worker?: { readonly concurrency: number; readonly batchSize: number };
    /**
     * Meter index write units (two extra reads per write, by another client: slower) and leave the events to
     * deliverEvents instead of delivering them during the run.
     */
    readonly meterIndexes?: boolean;
    /**
     * Run the charge worker in a process of its own (bench/charge-worker-process.ts), so that its CPU is measured
     * apart from the emulators', which stay in this one.
     */
    readonly workerProcess?: boolean;
    /** With workerProcess: a directory the worker writes its CPU profile into (node --cpu-prof) when it stops. */
    readonly workerProfileDir?: string;
    /** Every subscription signs up with a coupon taking 10 % off every charge (README, Coupons). */
    readonly coupon?: boolean;
  }): Promise<ChargeBench> {
    quietHandlers();
    const { LocalStack } = await import("../local/stack/local-stack");
    const local = await LocalStack.start({
      realTime: false,
      // The bench runs what it measures itself: a clock it moves (reconcile) fires nothing on the way.
      schedules: false,
      start: START,
      workerConcurrency: options.worker?.concurrency,
      workerBatchSize: options.worker?.batchSize,
      eventStream: options.meterIndexes !== true,
      chargeWorker: options.workerProcess !== true,
    });
    try {
      log(`signing up ${options.subscriptions} subscriptions`);
      const merchant = new MerchantClient(local.url, local.apiKey);
      if (options.coupon === true) {
        const coupon = { percent_off: 10, duration: "forever", code: BENCH_COUPON };
        const created = await merchant.post("/v1/coupons", coupon, "bench-coupon");
        if (created.status !== 201) throw new Error(`the coupon answered ${created.status}`);
      }
      const ids = await mapConcurrently(
        Array.from({ length: options.subscriptions }),
        SIGNUP_CONCURRENCY,
        async (_, n) => {
          const body = {
            customer: { name: `Bench ${n}`, email: `bench${n}@example.com` },
            plan: { amount: "20.00", currency: "USD", interval_months: 1 },
            billing: "token",
            ...(options.coupon === true ? { coupon: BENCH_COUPON } : {}),
            card: { number: n % 2 ? "4111111111111111" : "5555555555554444", expiry: "203012", cvc: "123" },
          };
          const signup = await merchant.post("/v1/subscriptions", body, `bench-signup-${n}`);
          if (signup.status !== 201) throw new Error(`sign-up ${n} answered ${signup.status}`);
          return signedUp.parse(signup.body).subscription_id;
        },
      );
      // The sign-ups' events are not the charges' to pay for.
      await local.stack.deliverEvents();
      // The clients the handlers' composition uses (the stack's runtime) and the one the event source mapping polls
      // with.
      const { runtime } = local.stack;
      const meters = {
        dynamo: countDynamoRequests(dynamoDbDocumentClientOf(runtime)),
        capacity: meterDynamoCapacity(dynamoDbDocumentClientOf(runtime)),
        sqs: countSqsRequests(sqsClientOf(runtime)),
        mappingSqs: countSqsRequests(local.stack.sqs.client, local.stack.chargeQueue.queueUrl),
        ...(options.meterIndexes === true && {
          indexes: meterIndexWrites(
            dynamoDbDocumentClientOf(runtime),
            billingTableDefinition(local.stack.tableName),
            local.stack.dynamo.client,
          ),
        }),
      };
      const worker =
        options.workerProcess === true
          ? await startWorkerProcess(local, options.worker, options.workerProfileDir)
          : undefined;
      return new ChargeBench(local, ids, meters, worker);
    } catch (error) {
      await local.close();
      throw error;
    }
  }

  get subscriptions(): number {
    return this.ids.length;
  }

  /** Every subscription's current period becomes due now: a direct repository write of next_charge_at. */
  async makeDue(): Promise<void> {
    const { repository } = this.local.stack.services;
    const now = this.local.clock.now().toISOString();
    await mapConcurrently(this.ids, SIGNUP_CONCURRENCY, async (id) => {
      const subscription = await repository.getSubscription(id);
      if (subscription === undefined) throw new Error(`subscription ${id} vanished`);
      const updated = await repository.updateSubscription(id, {
        expect: { period: subscription.period },
        set: { next_charge_at: now, updated_at: now },
      });
      if (!updated) throw new Error(`subscription ${id} changed under the benchmark`);
    });
  }

  /**
   * Makes every subscription due, sets the sandbox's latency, invokes run-charges and waits until the charge queue
   * holds nothing (every message deleted), then checks which periods advanced.
   */
  async chargeRun(latencyMs: number): Promise<ChargeRunMeasure> {
    const { repository } = this.local.stack.services;
    await this.makeDue();
    const periods = await Promise.all(
      this.ids.map(async (id) => (await repository.getSubscription(id))?.period ?? 0),
    );
    this.local.stack.sandbox.faults.configure({ latencyMs });
    for (const meter of Object.values(this.meters)) meter.take();
    const observer = this.local.stack.sqs.createClient();
    const queueUrl = this.local.stack.chargeQueue.queueUrl;
    const workerBefore = await this.workerCpuMs();
    const cpuBefore = process.cpuUsage();
    const started = performance.now();
    try {
      await this.local.invoke("run-charges", scheduledEvent(this.local.clock.now().toISOString()));
      // local-aws-sqs counts in-flight messages as stored: 0 means every message was processed and deleted.
      const deadline = Date.now() + 60_000 + this.ids.length * 100;
      while ((await approximateMessageCount(observer, queueUrl)) > 0) {
        if (Date.now() > deadline) throw new Error("the charge queue did not empty in time");
        await sleep(20);
      }
    } finally {
      observer.destroy();
      this.local.stack.sandbox.faults.configure({});
    }
    const seconds = (performance.now() - started) / 1000;
    const { user, system } = process.cpuUsage(cpuBefore);
    const workerAfter = await this.workerCpuMs();
    const sqs = this.meters.sqs.take();
    for (const [name, count] of Object.entries(this.meters.mappingSqs.take()))
      sqs[name] = (sqs[name] ?? 0) + count;
    const measure = {
      due: this.ids.length,
      seconds,
      cpuMs: (user + system) / 1000,
      ...(workerBefore !== undefined &&
        workerAfter !== undefined && { workerCpuMs: workerAfter - workerBefore }),
      dynamo: this.meters.dynamo.take(),
      capacity: this.meters.capacity.take(),
      indexUnits: this.meters.indexes?.take() ?? {},
      sqs,
    };
    const after = await Promise.all(
      this.ids.map(async (id) => (await repository.getSubscription(id))?.period ?? 0),
    );
    const charged = after.filter((period, n) => period === (periods[n] ?? 0) + 1).length;
    return { ...measure, charged };
  }

  /**
   * Reconciles, in one invocation of reconcile-ledger as an operator's range would, the charges' trade day up to the
   * day whose run looks for lines still unpaid (the settlement delay and its grace after it), the clock moved past
   * it without firing any schedule; and what that cost.
   */
  async reconcile(): Promise<ReconcileMeasure> {
    const tradeDay = gatewayDate(this.local.clock.now());
    const lastDay = shiftGatewayDate(tradeDay, SETTLEMENT_DELAY_DAYS + SETTLEMENT_GRACE_DAYS);
    await this.local.clock.set(gatewayDayStart(shiftGatewayDate(lastDay, 1)));
    for (const meter of Object.values(this.meters)) meter.take();
    const report = reconciled.parse(
      await this.local.invoke("reconcile-ledger", { from: tradeDay, to: lastDay }),
    );
    return {
      movements: report.gateway_records,
      payouts: report.payouts.length,
      mismatches: report.mismatches.length + report.settlement_mismatches.length,
      dynamo: this.meters.dynamo.take(),
      capacity: this.meters.capacity.take(),
      indexUnits: this.meters.indexes?.take() ?? {},
    };
  }

  /** Delivers every pending outbox as the table's stream would, and what that cost. */
  async deliverEvents(): Promise<DeliveryMeasure> {
    for (const meter of Object.values(this.meters)) meter.take();
    const report = await this.local.stack.deliverEvents();
    return {
      events: report.delivered,
      dynamo: this.meters.dynamo.take(),
      capacity: this.meters.capacity.take(),
      indexUnits: this.meters.indexes?.take() ?? {},
    };
  }

  /**
   * The emulators' own rates in this process, for scale: PutItem of ~1 KB items on dynalite, and messages sent,
   * received and deleted on local-aws-sqs (batches of 10), each with 16 requests in flight.
   */
  async emulatorRates(count: number): Promise<{ dynaliteWritesPerSec: number; sqsMessagesPerSec: number }> {
    const { dynamo, sqs } = this.local.stack;
    const tableName = this.local.outputs().environment.TABLE_NAME;
    const padding = "x".repeat(900);
    let started = performance.now();
    await mapConcurrently(Array.from({ length: count }), 16, (_, n) =>
      dynamo.client.send(
        new PutCommand({ TableName: tableName, Item: { pk: `BENCH#${n}`, sk: "RATE", padding } }),
      ),
    );
    const dynaliteWritesPerSec = count / ((performance.now() - started) / 1000);
    const { queueUrl } = await sqs.createQueueWithDlq("bench-rate", {
      maxReceiveCount: 8,
      visibilityTimeout: 30,
    });
    started = performance.now();
    const queue = createSqsChargeQueue({ client: sqs.client, queueUrl, concurrency: 16 });
    await queue.send(Array.from({ length: count }, (_, n) => ({ subscription_id: `bench-${n}`, period: 1 })));
    const received = await drainQueue(sqs.client, queueUrl);
    for (let offset = 0; offset < received.length; offset += 160) {
      const chunks = Array.from({ length: 16 }, (_, n) =>
        received.slice(offset + n * 10, offset + n * 10 + 10),
      );
      await Promise.all(
        chunks.filter((chunk) => chunk.length > 0).map((chunk) => deleteBatch(sqs.client, queueUrl, chunk)),
      );
    }
    const sqsMessagesPerSec = received.length / ((performance.now() - started) / 1000);
    return { dynaliteWritesPerSec, sqsMessagesPerSec };
  }

  async workerCpuMs(): Promise<number | undefined> {
    return this.worker?.cpuMs();
  }

  async close(): Promise<void> {
    await this.worker?.stop();
    await this.local.close();
  }
}

const WORKER_SCRIPT = new URL("./charge-worker-process.ts", import.meta.url);

/** The charge worker's process over this stack: its variables and endpoints as environment, its clock's now. */
async function startWorkerProcess(
  local: LocalStack,
  worker: { readonly concurrency: number; readonly batchSize: number } = { concurrency: 1, batchSize: 10 },
  profileDir?: string,
): Promise<LineProcess> {
  const { process: child } = await LineProcess.start(WORKER_SCRIPT, {
    nodeOptions: profileDir === undefined ? [] : ["--cpu-prof", `--cpu-prof-dir=${profileDir}`],
    args: [
      `--now=${local.clock.now().toISOString()}`,
      `--concurrency=${worker.concurrency}`,
      `--batch-size=${worker.batchSize}`,
    ],
    env: { ...process.env, ...local.outputs().environment },
  });
  return child;
}
