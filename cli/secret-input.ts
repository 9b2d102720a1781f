import { CliError, type CliStream } from "./cli-io";

// What the operator types into `billing setup`: each value from its environment variable, or asked for in the
// terminal, a secret without echo. Never a command-line flag: a flag stays in the shell's history and in the
// process list for anyone on the machine to read.

/** A terminal's input, or a stand-in for one in a test. */
export interface TerminalInput {
  readonly isTTY?: boolean;
  setRawMode?(raw: boolean): unknown;
  setEncoding(encoding: BufferEncoding): unknown;
  on(event: "data", listener: (chunk: string) => void): unknown;
  off(event: "data", listener: (chunk: string) => void): unknown;
  resume(): unknown;
  pause(): unknown;
}

export interface Asked {
  /** The environment variable that gives it without asking. */
  readonly variable: string;
  /** What the terminal asks. */
  readonly question: string;
  /** Typed without echo. */
  readonly secret: boolean;
  /** May be left out: Enter, or its variable set empty, leaves it undefined. */
  readonly optional?: true;
}

export interface InputSource {
  readonly environment: Readonly<Record<string, string | undefined>>;
  readonly terminal: TerminalInput;
  /** Where questions go (stderr: stdout stays the command's answer). */
  readonly prompts: CliStream;
}

const ENTER = new Set(["\r", "\n", "\u0004"]);
const CTRL_C = "\u0003";
const BACKSPACE = new Set(["\u007f", "\b"]);

/**
 * One line from a terminal in raw mode: echoed as typed, or not at all for a secret (not even asterisks, whose
 * count would tell the length). Ctrl-C cancels; Backspace takes back a character.
 */
export function askTerminal(
  question: string,
  secret: boolean,
  terminal: TerminalInput,
  prompts: CliStream,
): Promise<string> {
  prompts.write(question);
  return new Promise((resolve, reject) => {
    let value = "";
    const finish = (error?: Error) => {
      terminal.off("data", onData);
      terminal.setRawMode?.(false);
      terminal.pause();
      prompts.write("\n");
      if (error === undefined) resolve(value);
      else reject(error);
    };
    const onData = (chunk: string) => {
      for (const character of chunk) {
        if (ENTER.has(character)) return finish();
        if (character === CTRL_C) return finish(new CliError("canceled: nothing was written"));
        if (BACKSPACE.has(character)) {
          if (value.length > 0 && !secret) prompts.write("\b \b");
          value = value.slice(0, -1);
        } else if (character >= " ") {
          value += character;
          if (!secret) prompts.write(character);
        }
      }
    };
    terminal.setEncoding("utf8");
    terminal.setRawMode?.(true);
    terminal.on("data", onData);
    terminal.resume();
  });
}

/**
 * Each value from its variable, else asked in the terminal (one after the other); without a terminal, the missing
 * required variables are named and nothing is asked. Values are trimmed; an empty optional one is undefined.
 */
export async function readInputs<K extends string>(
  asked: Readonly<Record<K, Asked>>,
  source: InputSource,
): Promise<Record<K, string | undefined>> {
  const entries = Object.entries(asked) as [K, Asked][];
  const given = (variable: string) => source.environment[variable]?.trim() || undefined;
  const interactive = source.terminal.isTTY === true && typeof source.terminal.setRawMode === "function";
  if (!interactive) {
    const missing = entries.filter(
      ([, { variable, optional }]) => !optional && given(variable) === undefined,
    );
    if (missing.length > 0)
      throw new CliError(
        `set ${missing.map(([, { variable }]) => variable).join(", ")} (or run this in a terminal, which asks for them)`,
      );
  }
  const values = {} as Record<K, string | undefined>;
  for (const [key, { variable, question, secret, optional }] of entries) {
    let value = given(variable);
    // An optional value whose variable is set, even empty, is answered: nothing is asked.
    const answered = optional === true && source.environment[variable] !== undefined;
    while (value === undefined && interactive && !answered) {
      const hint = optional ? " (Enter to leave out)" : "";
      value =
        (await askTerminal(`${question}${hint}: `, secret, source.terminal, source.prompts)).trim() ||
        undefined;
      if (optional) break;
    }
    values[key] = value;
  }
  return values;
}
