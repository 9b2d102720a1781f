import { beforeAll, beforeEach, vi } from "vitest";
import { z } from "zod";
import { resetServices } from "../../functions/runtime/services-from-env";

/** Gives the process a Lambda's environment (restored by vi.unstubAllEnvs) and forgets services built before. */
export function useLambdaEnvironment(variables: Readonly<Record<string, string>>): void {
  resetServices();
  for (const [name, value] of Object.entries(variables)) vi.stubEnv(name, value);
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
