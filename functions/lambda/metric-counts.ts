import { type Metrics, MetricUnit } from "@aws-lambda-powertools/metrics";

/** Where observed things are counted. */
export interface Counter<N extends string> {
  add(name: N, by?: number): void;
}

/** Counts of one invocation, put as one datapoint per name; every name starts at 0 so alarms never lack data. */
export class MetricCounts<N extends string> implements Counter<N> {
  readonly #counts = new Map<N, number>();

  constructor(names: readonly N[]) {
    for (const name of names) this.#counts.set(name, 0);
  }

  add(name: N, by = 1): void {
    this.#counts.set(name, (this.#counts.get(name) ?? 0) + by);
  }

  putInto(metrics: Metrics): void {
    for (const [name, value] of this.#counts) metrics.addMetric(name, MetricUnit.Count, value);
  }
}
