import type {
  APIGatewayProxyEventV2,
  APIGatewayProxyStructuredResultV2,
  Context,
  SQSBatchResponse,
} from "aws-lambda";
import { deleteBatch } from "../../functions/adapters/aws/sqs-poller";
import { functionNamed } from "../../functions/function-table";
import { apiGatewayEvent, type HttpRequestShape } from "../../local/lambda/api-gateway-event";
import { stubContext } from "../../local/lambda/lambda-context";
import { receiveLambdaEvent } from "../../local/lambda/sqs-lambda-event";
import type { TestContainer } from "./handler-env";
import { type RecordedRequest, type RecordingServer, startRecordingServer } from "./recording-server";

const processIntake = functionNamed("process-intake");
const receiveGatewayWebhook = functionNamed("receive-gateway-webhook");
const receivePartnerEvent = functionNamed("receive-partner-event");
const receiveRecurringNotice = functionNamed("receive-recurring-notice");
const receiveStatusCallback = functionNamed("receive-status-callback");

// Our webhook routes as API Gateway (HTTP API, payload 2.0) would invoke them: a real HTTP server the sandbox
// delivers to, each request turned into the v2 event and passed to the wrapped Lambda handler, whose reply goes
// back to the sandbox. The handlers run in the test's container (a composition of its stack).

type HttpHandler = (
  event: APIGatewayProxyEventV2,
  context: Context,
) => Promise<APIGatewayProxyStructuredResultV2>;

/** Our webhook routes' functions in a container. */
export function webhookRoutes(container: TestContainer): Readonly<Record<string, HttpHandler>> {
  return {
    "/webhooks/status": container.handler(receiveStatusCallback),
    "/webhooks/gateway": container.handler(receiveGatewayWebhook),
    "/webhooks/partner": container.handler(receivePartnerEvent),
    "/webhooks/recurring": container.handler(receiveRecurringNotice),
  };
}

/** Invokes the handler of the request's route with its v2 event. */
export function invokeRoute(
  container: TestContainer,
  request: HttpRequestShape,
  options: { base64?: boolean } = {},
) {
  const path = new URL(request.url, "http://localhost").pathname;
  const route = webhookRoutes(container)[path];
  if (!route) throw new Error(`no webhook route ${path}`);
  const routeKey = `${request.method.toUpperCase()} ${path}`;
  return route(
    apiGatewayEvent(request, { routeKey }, options),
    stubContext(`webhooks${path.replaceAll("/", "-")}`),
  );
}

export interface WebhookReceiver extends RecordingServer {
  /** Public base of our webhooks: `<url>/webhooks`. */
  readonly webhookBaseUrl: string;
}

/** The receiver the sandbox delivers to; gateway webhooks reach the handler Base64-encoded. */
export async function startWebhookReceiver(container: TestContainer): Promise<WebhookReceiver> {
  const server = await startRecordingServer(async (request: RecordedRequest) => {
    const reply = await invokeRoute(container, request, {
      base64: request.url.startsWith("/webhooks/gateway"),
    });
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
export async function drainIntake(container: TestContainer): Promise<SQSBatchResponse[]> {
  const { stack } = container;
  const handler = container.handler(processIntake);
  const responses: SQSBatchResponse[] = [];
  for (;;) {
    const event = await receiveLambdaEvent(stack.sqs.client, stack.intakeQueue.queueUrl);
    if (event.Records.length === 0) return responses;
    const response = await handler(event, stubContext("process-intake"));
    responses.push(response);
    await deleteBatch(
      stack.sqs.client,
      stack.intakeQueue.queueUrl,
      event.Records,
      response.batchItemFailures,
    );
  }
}
