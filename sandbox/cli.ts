import { parseArgs } from "node:util";
import { ZodError } from "zod";
import { CALLBACK_FORMS } from "./acquirer/callback-forms";
import { parseFaultConfig } from "./faults/faults";
import { fieldOfIssue } from "./http/replies";
import type { Sandbox, SandboxOptions } from "./server";
import { seedFrom } from "./shared/prng";
import { merchantFromEnv } from "./state/merchant-config";

const USAGE =
  "usage: sandbox [--port 4010] [--host 127.0.0.1] [--seed N] [--faults '<json>'] [--callback-form real|short|seed]";

/** Sandbox options from the command line and the SANDBOX_* environment; throws an Error with a usage hint. */
export function sandboxOptionsFromCli(
  argv: readonly string[],
  env: Readonly<Record<string, string | undefined>>,
): SandboxOptions {
  const { values } = parseArgs({
    args: [...argv],
    options: {
      port: { type: "string", default: "4010" },
      host: { type: "string", default: "127.0.0.1" },
      seed: { type: "string" },
      faults: { type: "string" },
      "callback-form": { type: "string", default: "real" },
    },
    strict: true,
    allowPositionals: false,
  });
  const port = Number(values.port);
  if (!/^\d+$/.test(values.port) || port > 65_535) throw new Error(`--port must be 0–65535\n${USAGE}`);
  const callbackForm = CALLBACK_FORMS.find((form) => form === values["callback-form"]);
  if (callbackForm === undefined) throw new Error(`--callback-form must be real, short or seed\n${USAGE}`);
  return {
    port,
    host: values.host,
    callbackForm,
    merchants: [merchantFromEnv(env)],
    ...(values.seed === undefined ? {} : { seed: seedFrom(values.seed) }),
    ...(values.faults === undefined ? {} : { faults: parseFaultsFlag(values.faults) }),
  };
}

/** The --faults flag: JSON of the fault settings, checked; an error names the field. */
export function parseFaultsFlag(text: string) {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    throw new Error(`--faults must be JSON\n${USAGE}`);
  }
  try {
    return parseFaultConfig(json);
  } catch (error) {
    const issue = error instanceof ZodError ? error.issues[0] : undefined;
    throw issue ? new Error(`--faults: ${fieldOfIssue(issue)} ${issue.message}\n${USAGE}`) : error;
  }
}

/** What the CLI prints: the listening line first, then each merchant's credentials (all fake in the sandbox). */
export function describeSandbox(sandbox: Sandbox): string[] {
  const lines = [`sandbox listening on ${sandbox.url}`];
  for (const merchant of sandbox.merchants.list()) {
    lines.push(
      `  mid              ${merchant.mid}`,
      `  API key          ${merchant.apiKey}`,
      `  AES key (hex)    ${merchant.aesKeyHex}`,
      `  webhook secret   ${merchant.webhookSecret}`,
      `  partner API key  ${merchant.partnerApiKey}`,
    );
  }
  return lines;
}
