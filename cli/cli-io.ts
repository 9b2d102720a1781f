import { type Command, InvalidArgumentError } from "commander";
import { z } from "zod";
import { InvalidCursorError } from "../functions/core/ports/billing-repository";

/** Where the CLI writes: process.stdout/stderr, or buffers in a test. */
export interface CliStream {
  write(text: string): unknown;
  /** A terminal (progress bars are drawn on stderr only then). */
  readonly isTTY?: boolean;
  /** The terminal's width. */
  readonly columns?: number;
}

export interface CliIo {
  readonly stdout: CliStream;
  readonly stderr: CliStream;
}

/** An expected failure (bad input, nothing running, a refused target): its message alone is printed, exit 1. */
export class CliError extends Error {
  override readonly name = "CliError";
}

/** What every command gets: where to write, and whether to write JSON. */
export interface CommandIo {
  readonly io: CliIo;
  readonly json: boolean;
  /** Sets the process's exit code without failing the command (e.g. mismatches found). */
  fail(): void;
}

/** Wraps a command's work for commander: it gets the command (arguments, options) and where to write. */
export type CommandRunner = (
  work: (command: Command, out: CommandIo) => Promise<void>,
) => (...args: unknown[]) => Promise<void>;

/** A command's positional arguments, as commander processed them. */
export function argumentsOf(command: Command): readonly string[] {
  return z.array(z.string()).parse(command.processedArgs);
}

/** Writes `value` as JSON (--json), or the human lines. */
export function emit(out: CommandIo, value: unknown, human: () => readonly string[]): void {
  const text = out.json ? JSON.stringify(value, null, 2) : human().join("\n");
  out.io.stdout.write(`${text}\n`);
}

/** A subscription id the target does not know, and how to find the right one. */
export const noSubscription = (id: string): string =>
  `no subscription ${id} at this target: find its id with subscriptions list (--external-id <id> for a customer's)`;

/** A table cell of an optional value. */
export const orDash = (value: string | null | undefined): string => value ?? "-";

const MAX_LIMIT = 10_000;

/** --limit: a whole number from 1 to MAX_LIMIT. */
export function parseLimit(value: string): number {
  const limit = Number(value);
  if (!Number.isInteger(limit) || limit < 1 || limit > MAX_LIMIT)
    throw new InvalidArgumentError(`must be a whole number from 1 to ${MAX_LIMIT}, e.g. --limit 100`);
  return limit;
}

/** A page of a listing, or the CLI's error for a --cursor that is not one of it. */
export async function pageOrBadCursor<T>(list: () => Promise<T>): Promise<T> {
  try {
    return await list();
  } catch (error) {
    if (error instanceof InvalidCursorError)
      throw new CliError(
        `--cursor ${error.message}: pass the cursor the previous page printed (more: --cursor …), or leave it out`,
      );
    throw error;
  }
}

/** A page of a listing: its items under `key` and the next cursor (JSON), or their table and the cursor to go on from. */
export function emitPage<T>(
  out: CommandIo,
  key: string,
  items: readonly T[],
  cursor: string | undefined,
  table: (items: readonly T[]) => string,
): void {
  emit(out, { [key]: items, next_cursor: cursor ?? null }, () => [
    table(items),
    ...(cursor === undefined ? [] : [`more: --cursor ${cursor}`]),
  ]);
}
