import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
  SQSBatchResponse,
} from "aws-lambda";
import { deleteBatch } from "../../functions/adapters/sqs-poller";
import { handler as processIntake } from "../../functions/handlers/process-intake";
import { handler as receiveGatewayWebhook } from "../../functions/handlers/receive-gateway-webhook";
import { handler as receivePartnerEvent } from "../../functions/handlers/receive-partner-event";
import { handler as receiveRecurringNotice } from "../../functions/handlers/receive-recurring-notice";
import { handler as receiveStatusCallback } from "../../functions/handlers/receive-status-callback";
import type { BillingStack } from "../../local/billing-stack";
import { stubContext } from "./lambda-context";
import { receiveLambdaEvent } from "./lambda-sqs";
import { type RecordedRequest, type RecordingServer, startRecordingServer } from "./recording-server";

// Our webhook routes as API Gateway (HTTP API, payload 2.0) would invoke them: a real HTTP server the sandbox
// delivers to, each request turned into the v2 event and passed to the wrapped Lambda handler, whose reply goes
// back to the sandbox. The handlers run with the Lambda environment the test stubbed (useLambdaEnvironment).

type HttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

export const WEBHOOK_ROUTES: Readonly<Record<string, HttpHandler>> = {
  "/webhooks/status": receiveStatusCallback,
  "/webhooks/gateway": receiveGatewayWebhook,
  "/webhooks/partner": receivePartnerEvent,
  "/webhooks/recurring": receiveRecurringNotice,
};

export interface HttpRequestShape {
  readonly method: string;
  /** Path and query string. */
  readonly url: string;
  readonly headers: Readonly<Record<string, string | readonly string[] | undefined>>;
  readonly body: string | Buffer;
}

/**
 * The v2 event of a request: header names lower-cased and repeated values joined with commas (as API Gateway does),
 * the body Base64-encoded when `base64` (API Gateway does so for bodies it does not treat as text).
 */
export function apiGatewayEvent(
  request: HttpRequestShape,
  options: { base64?: boolean } = {},
): APIGatewayProxyEventV2 {
  const target = new URL(request.url, "http://localhost");
  const headers: Record<string, string> = {};
  for (const [name, value] of Object.entries(request.headers)) {
    if (value === undefined) continue;
    headers[name.toLowerCase()] = typeof value === "string" ? value : value.join(",");
  }
  const bytes = Buffer.isBuffer(request.body) ? request.body : Buffer.from(request.body, "utf8");
  const base64 = options.base64 ?? false;
  const method = request.method.toUpperCase();
  return {
    version: "2.0",
    routeKey: `${method} ${target.pathname}`,
    rawPath: target.pathname,
    rawQueryString: target.search.slice(1),
    headers,
    queryStringParameters:
      target.search === "" ? undefined : Object.fromEntries(target.searchParams.entries()),
    requestContext: {
      accountId: "123456789012",
      apiId: "webhooks",
      domainName: "webhooks.example.com",
      domainPrefix: "webhooks",
      http: {
        method,
        path: target.pathname,
        protocol: "HTTP/1.1",
        sourceIp: "127.0.0.1",
        userAgent: "sandbox",
      },
      requestId: "request",
      routeKey: `${method} ${target.pathname}`,
      stage: "$default",
      time: "01/Jan/2027:00:00:00 +0000",
      timeEpoch: 0,
    },
    body: bytes.length === 0 ? undefined : bytes.toString(base64 ? "base64" : "utf8"),
    isBase64Encoded: base64,
  };
}

/** Invokes the handler of the request's route with its v2 event. */
export function invokeRoute(request: HttpRequestShape, options: { base64?: boolean } = {}) {
  const path = new URL(request.url, "http://localhost").pathname;
  const route = WEBHOOK_ROUTES[path];
  if (!route) throw new Error(`no webhook route ${path}`);
  return route(apiGatewayEvent(request, options), stubContext(`webhooks${path.replaceAll("/", "-")}`));
}

export interface WebhookReceiver extends RecordingServer {
  /** Public base of our webhooks: `<url>/webhooks`. */
  readonly webhookBaseUrl: string;
}

/** The receiver the sandbox delivers to; gateway webhooks reach the handler Base64-encoded. */
export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const server = await startRecordingServer(async (request: RecordedRequest) => {
    const reply = await invokeRoute(request, { base64: request.url.startsWith("/webhooks/gateway") });
    return {
      status: reply.statusCode ?? 200,
      headers: Object.fromEntries(
        Object.entries(reply.headers ?? {}).map(([name, value]) => [name, String(value)]),
      ),
      text: reply.body ?? "",
    };
  });
  return Object.assign(server, { webhookBaseUrl: `${server.url}/webhooks` });
}

/**
 * Runs process-intake as the SQS event source mapping would, until the queue shows nothing: batches received from
 * local-aws-sqs in the Lambda event shape, the wrapped handler, then the successes deleted. Retried messages stay
 * invisible for their backoff and are left on the queue.
 */
export async function drainIntake(stack: BillingStack): Promise<SQSBatchResponse[]> {
  const responses: SQSBatchResponse[] = [];
  for (;;) {
    const event = await receiveLambdaEvent(stack.sqs.client, stack.intakeQueue.queueUrl);
    if (event.Records.length === 0) return responses;
    const response = await processIntake(event, stubContext("process-intake"));
    responses.push(response);
    await deleteBatch(
      stack.sqs.client,
      stack.intakeQueue.queueUrl,
      event.Records,
      response.batchItemFailures,
    );
  }
}
