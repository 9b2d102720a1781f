import { mkdtemp } from "node:fs/promises";
import { join } from "node:path";
import type { Benchmark, BenchRow } from "./benchmark";
import { ChargeBench, type ChargeRunMeasure } from "./charge-fixture";
import { CPU_OWNERS, type CpuOwner, type CpuProfile, cpuByOwner, readCpuProfile } from "./cpu-profile-owners";

// P1: charge throughput through local mode (bench/charge-fixture.ts): N due subscriptions charged by process-charges
// behind the SQS event source mapping with C charges in flight (batches × records per batch), first with 50 ms of
// gateway latency injected by the sandbox, where the worker should be latency-bound (≥ 90 % of C ÷ 50 ms), then with
// none; and the emulators' own rates for scale. The worker runs in a process of its own (bench/charge-worker-process.ts),
// as on Lambda, so its CPU per charge (our code and the SDK) is measured apart from this process's: dynalite,
// local-aws-sqs, the sandbox and the charge run. A first, unmeasured run warms the worker up (JIT, connections).
// Knobs: BENCH_CHARGES (500), BENCH_WORKER_CONCURRENCY (batches, 2), BENCH_WORKER_BATCH (2),
// BENCH_WORKER_PROFILE_DIR (the worker runs with --cpu-prof, writing into a new directory under it, and a last row
// splits its CPU per charge by whose code it ran: ours, zod, the AWS SDK, node, local mode's event source mapping).

const LATENCY_MS = 50;
const MIN_RATIO = 0.9;
const EMULATOR_SAMPLE = 2_000;

const rate = (measure: ChargeRunMeasure) => measure.charged / measure.seconds;
const fixed = (value: number, digits = 1) => Number(value.toFixed(digits));

function runRow(label: string, measure: ChargeRunMeasure, limit?: number): BenchRow {
  const perSec = rate(measure);
  const ratio = limit === undefined ? undefined : perSec / limit;
  const charged = Math.max(1, measure.charged);
  const workerCpu = (measure.workerCpuMs ?? Number.NaN) / charged;
  const emulatorCpu = measure.cpuMs / charged;
  const complete = measure.charged === measure.due;
  return {
    case: label,
    metrics: {
      chargesPerSec: fixed(perSec),
      charged: measure.charged,
      due: measure.due,
      seconds: fixed(measure.seconds, 3),
      workerCpuMsPerCharge: fixed(workerCpu, 2),
      emulatorCpuMsPerCharge: fixed(emulatorCpu, 2),
      ...(limit === undefined ? {} : { limitPerSec: limit, ratio: fixed(ratio ?? 0, 3) }),
    },
    result:
      `${fixed(perSec)} charges/s (${measure.charged}/${measure.due} in ${measure.seconds.toFixed(2)} s)` +
      (ratio === undefined ? "" : `, ${fixed(ratio, 2)} of the ${limit} charges/s limit`) +
      `; CPU per charge: worker ${workerCpu.toFixed(2)} ms, emulators and charge run ${emulatorCpu.toFixed(1)} ms`,
    target: limit === undefined ? "all charged" : `>= ${MIN_RATIO} of C ÷ ${LATENCY_MS} ms, all charged`,
    met: complete && (ratio === undefined || ratio >= MIN_RATIO),
  };
}

/** The worker's CPU per charge by owner, over all its runs (the warm-up's JIT included). */
function profileRow(profile: CpuProfile, charges: number): BenchRow {
  const byOwner = cpuByOwner(profile);
  const perCharge = (owner: CpuOwner) => byOwner[owner] / Math.max(1, charges);
  return {
    case: "  worker CPU by owner (--cpu-prof, every run)",
    metrics: Object.fromEntries(CPU_OWNERS.map((owner) => [owner, fixed(perCharge(owner), 2)])),
    result: `${CPU_OWNERS.map((owner) => `${owner} ${perCharge(owner).toFixed(2)}`).join(", ")} ms per charge`,
    target: "",
  };
}

export function chargeThroughputBenchmark(options: {
  readonly charges: number;
  readonly worker: { readonly concurrency: number; readonly batchSize: number };
  readonly emulatorSample?: number;
}): Benchmark {
  const { charges, worker } = options;
  const inFlight = worker.concurrency * worker.batchSize;
  const shape = `C = ${inFlight} (${worker.concurrency} batch(es) × ${worker.batchSize})`;
  return {
    name: "charge-throughput",
    description:
      `${charges} due subscriptions charged through local mode (run-charges → SQS → process-charges handler), ` +
      `${shape} in flight, sandbox latency ${LATENCY_MS} ms then 0 ms`,
    async run() {
      const profileRoot = process.env.BENCH_WORKER_PROFILE_DIR;
      const profileDir =
        profileRoot === undefined ? undefined : await mkdtemp(join(profileRoot, "charge-worker-"));
      const bench = await ChargeBench.start({
        subscriptions: charges,
        worker,
        workerProcess: true,
        workerProfileDir: profileDir,
      });
      const rows: BenchRow[] = [];
      let workerCharges = 0;
      try {
        console.error("  warming the worker up (not measured)");
        workerCharges += (await bench.chargeRun(0)).charged;
        console.error(`  charging with ${LATENCY_MS} ms gateway latency`);
        const slow = await bench.chargeRun(LATENCY_MS);
        console.error("  charging with 0 ms gateway latency");
        const fast = await bench.chargeRun(0);
        workerCharges += slow.charged + fast.charged;
        console.error("  measuring the emulators alone");
        const emulators = await bench.emulatorRates(options.emulatorSample ?? EMULATOR_SAMPLE);
        rows.push(
          runRow(
            `local mode, ${LATENCY_MS} ms gateway latency, ${shape}`,
            slow,
            inFlight / (LATENCY_MS / 1000),
          ),
          runRow(`local mode, 0 ms gateway latency, ${shape}`, fast),
          {
            case: "  emulators alone, same process",
            metrics: {
              dynaliteWritesPerSec: fixed(emulators.dynaliteWritesPerSec),
              sqsMessagesPerSec: fixed(emulators.sqsMessagesPerSec),
            },
            result:
              `dynalite ${Math.round(emulators.dynaliteWritesPerSec)} PutItem/s, local-aws-sqs ` +
              `${Math.round(emulators.sqsMessagesPerSec)} msgs/s sent+received+deleted`,
            target: "",
          },
        );
      } finally {
        await bench.close();
      }
      if (profileDir !== undefined) rows.push(profileRow(await readCpuProfile(profileDir), workerCharges));
      return rows;
    },
  };
}
