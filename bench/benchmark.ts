/** One line of the benchmark table: a measured case, its figures, and the target it is held to. */
export interface BenchRow {
  /** What was measured, e.g. "POST /v1/payments/payment". */
  readonly case: string;
  /** The figures, for the JSON results (req/s, latencies in ms, bytes…). */
  readonly metrics: Readonly<Record<string, number>>;
  /** The figures in words, for the table. */
  readonly result: string;
  /** The aim, in words; "" when the row only informs. */
  readonly target: string;
  /** Whether the aim was met; undefined when the row has none. */
  readonly met?: boolean;
}

/** A named benchmark of `npm run bench` (`-- --only <name>` runs one). */
export interface Benchmark {
  readonly name: string;
  readonly description: string;
  run(): Promise<readonly BenchRow[]>;
  /** Rows that weigh ours against a baseline's as a whole (`--baseline`), after the rows side by side. */
  compare?(ours: readonly BenchRow[], baseline: readonly BenchRow[], ref: string): readonly BenchRow[];
}
