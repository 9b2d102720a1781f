import { beforeAll, beforeEach, vi } from "vitest";
import { z } from "zod";
import type { Composition } from "../../functions/composition/compose";
import { composedHandler, type HandlerDefinition } from "../../functions/composition/lambda-entry";
import { createRuntime, type Runtime } from "../../functions/composition/runtime";
import type { BillingStack } from "../../local/stack/billing-stack";

/**
 * A Lambda container on a stack: the functions run in their middleware over one composition of the stack's variables,
 * as a container's handlers run over its environment. `renew` starts a new container: new SDK clients (and so an
 * empty secret cache), everything built again.
 */
export class TestContainer {
  #composition: Composition | undefined;
  #runtime: Runtime | undefined;

  constructor(private readonly stackOf: () => BillingStack) {}

  get stack(): BillingStack {
    return this.stackOf();
  }

  /** A new container, with variables added or taken away (undefined). */
  renew(variables: Record<string, string | undefined> = {}): void {
    this.#runtime?.close();
    this.#runtime = createRuntime(this.stack.runtimeOptions);
    this.#composition = this.stack.compose({}, variables, this.#runtime);
  }

  /** A function of the table (functionNamed), run in this container. */
  handler<E, R, S>(definition: HandlerDefinition<E, R, S>) {
    return composedHandler(definition, () => {
      if (this.#composition === undefined) this.renew();
      return this.#composition as Composition;
    });
  }
}

const emfRecord = z.looseObject({
  _aws: z.object({
    CloudWatchMetrics: z.array(
      z.object({ Namespace: z.string(), Metrics: z.array(z.object({ Name: z.string(), Unit: z.string() })) }),
    ),
  }),
});

/**
 * Captures what the process writes to stdout and stderr (log lines, EMF metrics) until vi.restoreAllMocks (the
 * test config restores mocks after each test).
 */
export function captureOutput() {
  const written: string[] = [];
  const capture = (chunk: unknown) => {
    written.push(String(chunk));
    return true;
  };
  vi.spyOn(process.stdout, "write").mockImplementation(capture);
  vi.spyOn(process.stderr, "write").mockImplementation(capture);
  const records = () =>
    written
      .join("")
      .split("\n")
      .filter((line) => line.startsWith("{"))
      .map((line): unknown => JSON.parse(line));
  return {
    text: () => written.join(""),
    /** Every metric of every EMF record written, by namespace/name (the last value wins). */
    metrics(): Record<string, unknown> {
      const values: Record<string, unknown> = {};
      for (const record of records()) {
        const parsed = emfRecord.safeParse(record);
        if (!parsed.success) continue;
        for (const directive of parsed.data._aws.CloudWatchMetrics) {
          for (const { Name } of directive.Metrics)
            values[`${directive.Namespace}/${Name}`] = parsed.data[Name];
        }
      }
      return values;
    },
    /** Each EMF record's values of `names`, with its `currency` dimension (the revenue metrics put one per currency). */
    currencyMetrics(names: readonly string[]): { currency: unknown; name: string; value: unknown }[] {
      return records().flatMap((record) => {
        const parsed = emfRecord.safeParse(record);
        if (!parsed.success) return [];
        const { currency } = parsed.data;
        return parsed.data._aws.CloudWatchMetrics.flatMap((directive) =>
          directive.Metrics.filter(({ Name }) => names.includes(Name)).map(({ Name }) => ({
            currency,
            name: Name,
            value: parsed.data[Name],
          })),
        );
      });
    },
    /** The JSON log lines with a message (not EMF). */
    logs: () =>
      records().filter((record) => z.looseObject({ message: z.string() }).safeParse(record).success),
  };
}

/**
 * Captures stdout and stderr for a whole test file, hooks included (call it at the top level, before the hooks that
 * start anything): the spies restored before each test are put back at once. `text()` is everything so far.
 */
export function captureFileOutput(): { text: () => string } {
  const earlier: string[] = [];
  let current: ReturnType<typeof captureOutput> | undefined;
  beforeAll(() => {
    current = captureOutput();
  });
  beforeEach(() => {
    earlier.push(current?.text() ?? "");
    current = captureOutput();
  });
  return { text: () => [...earlier, current?.text() ?? ""].join("") };
}
