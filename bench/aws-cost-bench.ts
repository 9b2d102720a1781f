import { LAMBDA_MEMORY_MB } from "../lib/lambda-bundling";
import { dynamoKinds, total } from "../local/aws/sdk-request-counter";
import type { Benchmark, BenchRow } from "./benchmark";
import { ChargeBench } from "./charge-fixture";

// P2: AWS requests per successful charge, counted on the SDK clients of a local-mode charge run (bench/
// charge-fixture.ts) at the deployed worker shape (5 batches of 10), with 50 ms gateway latency; then what 1,000,000
// charges cost on AWS at on-demand prices (their reconciliation included: reconcile-ledger over the days that pay
// them out, per movement it compared), beside the hosted alternative's 0.7 % of volume.
// Knob: BENCH_COST_CHARGES (default 200).

/**
 * us-east-1 on-demand list prices, as published on aws.amazon.com/lambda/pricing, /dynamodb/pricing/on-demand and
 * /sqs/pricing (read 2026-11; DynamoDB's are the November 2024 on-demand prices).
 */
const PRICES = {
  lambdaGbSecondArm: 0.0000133334,
  lambdaPerRequest: 0.2 / 1e6,
  dynamoWriteUnit: 0.625 / 1e6,
  dynamoReadUnit: 0.125 / 1e6,
  sqsPerRequest: 0.4 / 1e6,
} as const;
/** The hosted alternative: 0.7 % of volume, at a $20 average charge. */
const HOSTED_FEE = 0.007;
const AVERAGE_CHARGE_USD = 20;
const LATENCY_MS = 50;
const MILLION = 1_000_000;
const WORKER = { concurrency: 5, batchSize: 10 } as const;

/** Write units of one successful charge on its own path: the claim, the close, the subscription's advance. */
const MAX_WRITE_UNITS = 5;

const per = (count: number, charges: number) => count / Math.max(1, charges);

/** Table and index write units per charge of a measured phase (the table's as dynalite reports them). */
function writeUnitsOf(
  measure: {
    readonly capacity: { readonly write: number };
    readonly indexUnits: Readonly<Record<string, number>>;
  },
  charges: number,
) {
  const table = per(measure.capacity.write, charges);
  const indexes = Object.fromEntries(
    Object.entries(measure.indexUnits).map(([name, units]) => [name, per(units, charges)]),
  );
  return { table, indexes, total: table + Object.values(indexes).reduce((sum, units) => sum + units, 0) };
}

/** Index write units per charge as metrics: dueIndexWriteUnits… */
const byIndex = (units: ReturnType<typeof writeUnitsOf>) =>
  Object.fromEntries(Object.entries(units.indexes).map(([name, value]) => [`${name}IndexWriteUnits`, value]));

const unitsText = (units: ReturnType<typeof writeUnitsOf>) =>
  [
    `table ${two(units.table)}`,
    ...Object.entries(units.indexes).map(([name, value]) => `${name} ${two(value)}`),
  ].join(", ");
const usd = (value: number) => `$${value.toLocaleString("en-US", { maximumFractionDigits: 0 })}`;
const two = (value: number) => value.toFixed(2);

export function awsCostBenchmark(options: { readonly charges: number }): Benchmark {
  return {
    name: "aws-cost",
    description: `AWS requests per successful charge over ${options.charges} charges in local mode (${WORKER.concurrency} batches of ${WORKER.batchSize}, ${LATENCY_MS} ms gateway latency), cost per 1M charges at us-east-1 on-demand prices`,
    async run(): Promise<BenchRow[]> {
      const bench = await ChargeBench.start({
        subscriptions: options.charges,
        worker: WORKER,
        meterIndexes: true,
      });
      try {
        console.error(`  charging with ${LATENCY_MS} ms gateway latency`);
        const run = await bench.chargeRun(LATENCY_MS);
        console.error("  delivering the events the charges announced");
        const delivery = await bench.deliverEvents();
        console.error("  reconciling the days that pay them out");
        const reconcile = await bench.reconcile();
        const reconcileKinds = dynamoKinds(reconcile.dynamo);
        const reconcileUnits = writeUnitsOf(reconcile, reconcile.movements);
        // Each movement is a charge: reconciling it costs what one movement of the measured days did.
        const reconcileReadUnits = per(reconcile.capacity.read, reconcile.movements);
        const charged = run.charged;
        const kinds = dynamoKinds(run.dynamo);
        const sqsRequests = total(run.sqs);
        const invocations = Math.ceil(charged / WORKER.batchSize);
        // Lambda bills each invocation's duration: with WORKER.concurrency batches always in flight, the run's
        // wall time × that many invocations. An upper bound: this process is CPU-bound (see charge-throughput).
        const secondsPerCharge = (run.seconds * WORKER.concurrency) / Math.max(1, charged);
        const chargeUnits = writeUnitsOf(run, charged);
        const deliveryUnits = writeUnitsOf(delivery, charged);
        const writeUnits = chargeUnits.total + deliveryUnits.total;
        const readUnits = per(run.capacity.read + delivery.capacity.read, charged);
        const deliveryKinds = dynamoKinds(delivery.dynamo);
        const cost = {
          lambda:
            MILLION * secondsPerCharge * (LAMBDA_MEMORY_MB / 1024) * PRICES.lambdaGbSecondArm +
            (MILLION / WORKER.batchSize) * PRICES.lambdaPerRequest,
          dynamo:
            MILLION *
            ((writeUnits + reconcileUnits.total) * PRICES.dynamoWriteUnit +
              (readUnits + reconcileReadUnits) * PRICES.dynamoReadUnit),
          sqs: MILLION * per(sqsRequests, charged) * PRICES.sqsPerRequest,
        };
        const ours = cost.lambda + cost.dynamo + cost.sqs;
        const hosted = MILLION * AVERAGE_CHARGE_USD * HOSTED_FEE;
        const sqsByCommand = Object.entries(run.sqs)
          .map(([name, count]) => `${name.replace(/Command$/, "")} ${two(per(count, charged))}`)
          .join(", ");
        return [
          {
            case: "DynamoDB requests per charge",
            metrics: {
              charged,
              due: run.due,
              reads: per(kinds.reads, charged),
              writes: per(kinds.writes, charged),
              queries: per(kinds.queries, charged),
              scans: kinds.scans,
              readUnits: per(run.capacity.read, charged),
              writeUnits: chargeUnits.total,
              tableWriteUnits: chargeUnits.table,
              ...byIndex(chargeUnits),
            },
            result:
              `${two(per(kinds.reads, charged))} reads (of which ${two(per(kinds.queries, charged))} Query), ` +
              `${two(per(kinds.writes, charged))} writes, ${kinds.scans} Scan; ${two(per(run.capacity.read, charged))} RRU, ` +
              `${two(chargeUnits.total)} WRU (${unitsText(chargeUnits)}); ${charged}/${run.due} charged`,
            target: `<= ${MAX_WRITE_UNITS} WRU, 0 Scan, all charged`,
            met: chargeUnits.total <= MAX_WRITE_UNITS && kinds.scans === 0 && charged === run.due,
          },
          {
            case: "  and delivering its events (stream, publish-events)",
            metrics: {
              events: per(delivery.events, charged),
              reads: per(deliveryKinds.reads, charged),
              writes: per(deliveryKinds.writes, charged),
              readUnits: per(delivery.capacity.read, charged),
              writeUnits: deliveryUnits.total,
              tableWriteUnits: deliveryUnits.table,
              ...byIndex(deliveryUnits),
            },
            result:
              `${two(per(delivery.events, charged))} events, ${two(per(deliveryKinds.reads, charged))} reads, ` +
              `${two(per(deliveryKinds.writes, charged))} writes; ${two(per(delivery.capacity.read, charged))} RRU, ` +
              `${two(deliveryUnits.total)} WRU (${unitsText(deliveryUnits)})`,
            target: "",
          },
          {
            case: "  and reconciling it (reconcile-ledger: transactions, payouts)",
            metrics: {
              movements: reconcile.movements,
              payouts: reconcile.payouts,
              mismatches: reconcile.mismatches,
              reads: per(reconcileKinds.reads, reconcile.movements),
              writes: per(reconcileKinds.writes, reconcile.movements),
              queries: per(reconcileKinds.queries, reconcile.movements),
              scans: reconcileKinds.scans,
              readUnits: reconcileReadUnits,
              writeUnits: reconcileUnits.total,
              ...byIndex(reconcileUnits),
            },
            result:
              `${two(per(reconcileKinds.reads, reconcile.movements))} reads (of which ${two(per(reconcileKinds.queries, reconcile.movements))} Query), ` +
              `${two(per(reconcileKinds.writes, reconcile.movements))} writes, ${reconcileKinds.scans} Scan; ${two(reconcileReadUnits)} RRU, ` +
              `${two(reconcileUnits.total)} WRU (${unitsText(reconcileUnits)}) per movement; ${reconcile.movements} movements, ` +
              `${reconcile.payouts} payouts, ${reconcile.mismatches} mismatches`,
            target: "0 Scan, 0 mismatches",
            met: reconcileKinds.scans === 0 && reconcile.mismatches === 0,
          },
          {
            case: "SQS requests per charge (amortised)",
            metrics: { requests: per(sqsRequests, charged), ...run.sqs },
            result: `${two(per(sqsRequests, charged))} (${sqsByCommand})`,
            target: "",
          },
          {
            case: "Lambda per charge",
            metrics: { invocations: per(invocations, charged), secondsPerCharge, memoryMb: LAMBDA_MEMORY_MB },
            result: `${(secondsPerCharge * 1000).toFixed(0)} ms billed at ${LAMBDA_MEMORY_MB} MB arm64, ${two(per(invocations, charged))} invocations (measured locally, an upper bound)`,
            target: "",
          },
          {
            case: "AWS cost per 1,000,000 charges",
            metrics: { lambda: cost.lambda, dynamo: cost.dynamo, sqs: cost.sqs, total: ours, hosted },
            result: `${usd(ours)} (Lambda ${usd(cost.lambda)}, DynamoDB ${usd(cost.dynamo)}, SQS ${usd(cost.sqs)}) vs hosted ${usd(hosted)} (0.7 % of $${AVERAGE_CHARGE_USD})`,
            target: "",
          },
          await withCouponRow(options.charges, per(kinds.reads, charged)),
        ];
      } finally {
        await bench.close();
      }
    },
  };
}

/**
 * The same charges on subscriptions that redeemed a coupon (10 % off, forever): its terms are on the subscription, so
 * a renewal with a coupon reads at most one item more than one without (`readsWithout`, measured on the same machine).
 */
async function withCouponRow(charges: number, readsWithout: number): Promise<BenchRow> {
  const bench = await ChargeBench.start({
    subscriptions: charges,
    worker: WORKER,
    meterIndexes: true,
    coupon: true,
  });
  try {
    console.error(`  charging ${charges} subscriptions with a coupon`);
    const run = await bench.chargeRun(LATENCY_MS);
    const kinds = dynamoKinds(run.dynamo);
    const units = writeUnitsOf(run, run.charged);
    const reads = per(kinds.reads, run.charged);
    return {
      case: "  the same with a coupon (10 % off, forever)",
      metrics: { reads, writes: per(kinds.writes, run.charged), writeUnits: units.total, ...byIndex(units) },
      result:
        `${two(reads)} reads (${two(reads - readsWithout)} more), ${two(per(kinds.writes, run.charged))} writes; ` +
        `${two(per(run.capacity.read, run.charged))} RRU, ${two(units.total)} WRU (${unitsText(units)}); ` +
        `${run.charged}/${run.due} charged`,
      target: "<= 1 read more than without a coupon",
      met: reads - readsWithout <= 1 && run.charged === run.due,
    };
  } finally {
    await bench.close();
  }
}
