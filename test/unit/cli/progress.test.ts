import { describe, expect, it } from "vitest";
import type { CliIo } from "../../../cli/cli-io";
import { withProgress } from "../../../cli/progress";

/** Buffers as the CLI's streams; stderr a terminal or not. */
function buffers(tty: boolean) {
  const written = { stdout: "", stderr: "" };
  const io: CliIo = {
    stdout: { write: (text: string) => (written.stdout += text) },
    stderr: { write: (text: string) => (written.stderr += text), isTTY: tty, columns: 100 },
  };
  return { io, written };
}

describe("progress on stderr", () => {
  it("without a terminal writes the notes alone, one line each, and no bar", async () => {
    const { io, written } = buffers(false);
    const result = await withProgress(io, { label: "replaying", total: 2 }, async (progress) => {
      expect(progress.drawn).toBe(false);
      progress.update(1, "8 events");
      progress.note("day 1 of 2: 8 events");
      progress.update(2, "12 events");
      return 12;
    });
    expect(result).toBe(12);
    expect(written).toEqual({ stdout: "", stderr: "day 1 of 2: 8 events\n" });
  });

  it("on a terminal draws a bar with the count and the word on it, the notes above, and clears it at the end", async () => {
    const { io, written } = buffers(true);
    await withProgress(io, { label: "reconciling", total: 3 }, async (progress) => {
      expect(progress.drawn).toBe(true);
      progress.update(1, "2027-03-01");
      progress.note("2027-03-01: 3 gateway records");
      progress.update(3, "2027-03-03");
    });
    expect(written.stdout).toBe("");
    expect(written.stderr).toContain("2027-03-01: 3 gateway records\n");
    expect(written.stderr).toMatch(/reconciling █+ 3\/3 2027-03-03 \| 0s/);
    // Cleared from the cursor down: what follows (stdout's answer) starts on a clean line.
    expect(written.stderr.endsWith("\u001b[0J")).toBe(true);
  });

  it("shows a percentage for steps that are no count, and the time so far without a total", async () => {
    const clock = buffers(true);
    await withProgress(clock.io, { label: "moving clock", total: 1000, percent: true }, async (progress) => {
      progress.update(250, "at 2027-03-08 10:00Z");
    });
    expect(clock.written.stderr).toMatch(/moving clock █+░+ 25% at 2027-03-08 10:00Z \| 0s/);

    const run = buffers(true);
    await withProgress(run.io, { label: "running" }, async (progress) => {
      progress.update(0, "run-charges…");
    });
    expect(run.written.stderr).toMatch(/running run-charges… \| 0s/);
  });

  it("clears the bar when the work fails, and lets the error through", async () => {
    const { io, written } = buffers(true);
    await expect(
      withProgress(io, { label: "redriving" }, async () => {
        throw new Error("refused");
      }),
    ).rejects.toThrow("refused");
    expect(written.stderr.endsWith("\u001b[0J")).toBe(true);
  });
});
