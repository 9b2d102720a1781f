import { injectLambdaContext } from "@aws-lambda-powertools/logger/middleware";
import { logMetrics } from "@aws-lambda-powertools/metrics/middleware";
import middy, { type MiddlewareObj } from "@middy/core";
import type { Context } from "aws-lambda";
import { logger, metrics } from "./observability";
import { redactText } from "./redaction";

/**
 * A failed invocation is logged through the redacting logger (with its stack), and Lambda, which prints whatever
 * the handler throws, gets an error whose message is redacted too: no error path can carry card data to the logs.
 */
const logFailure: MiddlewareObj = {
  onError(request) {
    const { error } = request;
    if (!(error instanceof Error)) return;
    logger.error("invocation failed", error);
    const safe = new Error(redactText(error.message));
    safe.name = error.name;
    request.error = safe;
  },
};

/**
 * Wraps a handler's wiring in the middleware every entry point shares (middleware first, handler last): the
 * invocation's context on every log line (its X-Ray trace id too), failures logged safely, and the invocation's
 * metrics flushed as one EMF record. The trace itself is Lambda's active tracing (README, Tracing).
 */
export function observedHandler<E, R>(handler: (event: E, context: Context) => Promise<R>) {
  return middy(handler)
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(logMetrics(metrics, { captureColdStartMetric: true }))
    .use(logFailure);
}
