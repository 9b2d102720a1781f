import { runBillingCli } from "../../cli/billing-cli";

export interface CliRun {
  readonly code: number;
  readonly stdout: string;
  readonly stderr: string;
}

/** Runs `npx billing <args>` in this process, its output captured. */
export async function runCli(args: readonly string[]): Promise<CliRun> {
  let stdout = "";
  let stderr = "";
  const code = await runBillingCli(args, {
    stdout: { write: (text: string) => (stdout += text) },
    stderr: { write: (text: string) => (stderr += text) },
  });
  return { code, stdout, stderr };
}
