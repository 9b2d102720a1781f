import { type ChildProcessByStdio, spawn } from "node:child_process";
import { once } from "node:events";
import { createInterface } from "node:readline";
import type { Readable, Writable } from "node:stream";
import { fileURLToPath } from "node:url";
import { z } from "zod";

const cpuLine = z.object({ cpuMs: z.number() });
const TSX = fileURLToPath(new URL("../node_modules/.bin/tsx", import.meta.url));

/**
 * A benchmark's helper script in a child process (tsx), driven over a line protocol: it prints one JSON line when
 * ready, answers each command line written to its stdin with one JSON line ("cpu" with {cpuMs}), and stops when stdin closes.
 */
export class LineProcess {
  readonly #child: ChildProcessByStdio<Writable, Readable, null>;
  readonly #lines: AsyncIterator<string>;

  private constructor(child: ChildProcessByStdio<Writable, Readable, null>) {
    this.#child = child;
    this.#lines = createInterface({ input: child.stdout })[Symbol.asyncIterator]();
  }

  /** Starts `script` (a URL of a .ts file) with node options, arguments and environment; returns its ready line. */
  static async start(
    script: URL,
    options: {
      readonly nodeOptions?: readonly string[];
      readonly args?: readonly string[];
      readonly env?: NodeJS.ProcessEnv;
    } = {},
  ): Promise<{ process: LineProcess; ready: unknown }> {
    const child = spawn(
      TSX,
      [...(options.nodeOptions ?? []), fileURLToPath(script), ...(options.args ?? [])],
      { stdio: ["pipe", "pipe", "inherit"], env: options.env ?? process.env },
    );
    const started = new LineProcess(child);
    try {
      return { process: started, ready: JSON.parse(await started.#nextLine()) };
    } catch (error) {
      await started.stop();
      throw error;
    }
  }

  async #nextLine(): Promise<string> {
    const line = await this.#lines.next();
    if (line.done) throw new Error("the child process ended");
    return line.value;
  }

  /** Writes a command line and parses the JSON line that answers it. */
  async ask(command: string): Promise<unknown> {
    this.#child.stdin.write(`${command}\n`);
    return JSON.parse(await this.#nextLine());
  }

  /** CPU time (user + system) of the process so far: the answer to "cpu", which every helper script gives. */
  async cpuMs(): Promise<number> {
    return cpuLine.parse(await this.ask("cpu")).cpuMs;
  }

  /** Closing stdin stops the process; one that does not exit within 5 s is killed. */
  async stop(): Promise<void> {
    if (this.#child.exitCode !== null) return;
    const exited = once(this.#child, "exit");
    this.#child.stdin.end();
    const timer = setTimeout(() => this.#child.kill(), 5_000);
    await exited;
    clearTimeout(timer);
  }
}
