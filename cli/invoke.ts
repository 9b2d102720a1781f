import { InvokeCommand, LambdaClient, ResourceNotFoundException } from "@aws-sdk/client-lambda";
import { z } from "zod";
import { functionNameVariable, type InvokedFunction } from "../lib/stack-outputs";
import { CliError } from "./cli-io";
import type { TargetSession } from "./target";

// Operations that change state at scale or need the gateway's secrets run where they run on schedule: the CLI
// invokes the deployed function (or the local stack's, through its Invoke API) with the operator's credentials,
// and never holds the gateway's keys or runs a charge run outside the function's concurrency limit.

const functionErrorSchema = z.object({
  errorType: z.string().optional(),
  errorMessage: z.string().optional(),
});

/** A Lambda client for the target, on the operator's credentials (a local stack's fake ones and endpoint). */
function lambdaClientOf(session: TargetSession): LambdaClient {
  const { region, profile, credentials, endpoints } = session.runtimeOptions;
  return new LambdaClient({ region, profile, credentials, endpoint: endpoints?.lambda });
}

/** Where a failed invocation's details are: the function's log group, or npm start's output. */
const logsOf = (session: TargetSession, functionName: string | undefined) =>
  session.target.kind === "local"
    ? "npm start's output has the details"
    : `its logs have the details: aws logs tail /aws/lambda/${functionName} --since 1h`;

/**
 * Invokes `handler`'s function with `payload` and waits for its result (RequestResponse). A function that failed is
 * a CliError naming it and its error; `resultSchema` checks what it answered.
 */
export async function invokeFunction<T>(
  session: TargetSession,
  handler: InvokedFunction,
  payload: unknown,
  resultSchema: z.ZodType<T>,
): Promise<T> {
  const variable = functionNameVariable(handler);
  const functionName = session.environment(z.object({ [variable]: z.string().min(1) }))[variable];
  const client = lambdaClientOf(session);
  try {
    const response = await client
      .send(new InvokeCommand({ FunctionName: functionName, Payload: Buffer.from(JSON.stringify(payload)) }))
      .catch((error: unknown) => {
        if (error instanceof ResourceNotFoundException)
          throw new CliError(
            `no function ${functionName} at the target (${session.target.source}): pass --region if the stacks are in another Region, or write the outputs file again`,
          );
        throw error;
      });
    const text = Buffer.from(response.Payload ?? []).toString("utf8");
    const body: unknown = text === "" ? null : JSON.parse(text);
    if (response.FunctionError !== undefined) {
      const failure = functionErrorSchema.safeParse(body);
      const reason = failure.success ? (failure.data.errorMessage ?? failure.data.errorType) : undefined;
      throw new CliError(
        `${handler} (${functionName}) failed: ${reason ?? response.FunctionError}; ${logsOf(session, functionName)}`,
      );
    }
    const result = resultSchema.safeParse(body, { reportInput: false });
    if (!result.success)
      throw new CliError(
        `${handler} (${functionName}) answered something this CLI does not know: run the CLI of the deployed version`,
      );
    return result.data;
  } finally {
    client.destroy();
  }
}
