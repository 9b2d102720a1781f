import type { APIGatewayProxyStructuredResultV2 } from "aws-lambda";
import type { LambdaFunctions } from "./lambda-functions";

// Lambda's Invoke API (POST /2015-03-31/functions/{name}/invocations), locally: the SDK's LambdaClient pointed at
// the local stack (AWS_ENDPOINT_URL_LAMBDA) invokes the same functions the stack's routes, schedules and queues do.
// This is how the ops CLI runs a charge run or a reconciliation on either target. Signatures are not checked: local
// mode listens on the loopback interface only.

const INVOCATION_PATH = /^\/2015-03-31\/functions\/([^/]+)\/invocations$/;

/** The function an Invoke request names, or undefined when the request is not one. */
export function invokedFunctionOf(method: string, path: string): string | undefined {
  const name = method === "POST" ? INVOCATION_PATH.exec(path)?.[1] : undefined;
  return name === undefined ? undefined : decodeURIComponent(name);
}

const json = (statusCode: number, body: unknown, headers: Record<string, string> = {}) => ({
  statusCode,
  headers: { "content-type": "application/json", ...headers },
  body: JSON.stringify(body),
});

/**
 * Lambda's answers: 200 with the function's result; 200 with X-Amz-Function-Error and {errorType, errorMessage}
 * when the function failed; 404 ResourceNotFoundException for a name the function table lacks; 400 for a payload
 * that is not JSON.
 */
export async function invokeAsLambda(
  functions: LambdaFunctions,
  name: string,
  payload: Buffer,
): Promise<APIGatewayProxyStructuredResultV2> {
  if (!functions.specs.some((spec) => spec.name === name)) {
    return json(
      404,
      { Type: "User", message: `Function not found: ${name}` },
      {
        "x-amzn-errortype": "ResourceNotFoundException",
      },
    );
  }
  let event: unknown;
  try {
    event = payload.length === 0 ? {} : JSON.parse(payload.toString("utf8"));
  } catch {
    return json(
      400,
      { Type: "User", message: "Could not parse request body into json" },
      {
        "x-amzn-errortype": "InvalidRequestContentException",
      },
    );
  }
  try {
    return json(200, (await functions.invoke(name, event)) ?? null);
  } catch (error) {
    const failure = error instanceof Error ? error : new Error(String(error));
    return json(
      200,
      { errorType: failure.name, errorMessage: failure.message, trace: [] },
      {
        "x-amz-function-error": "Unhandled",
      },
    );
  }
}
