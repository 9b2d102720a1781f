import { randomBytes } from "node:crypto";
import { readFileSync } from "node:fs";
import { createServer, type Server } from "node:http";
import type { APIGatewayProxyEventV2 } from "aws-lambda";
import { z } from "zod";
import { LOCAL_OUTPUTS_FILE, type LocalOutputs } from "../../cli/local-outputs";
import { hashApiKey } from "../../functions/api/api-key";
import { toErrorResponse } from "../../functions/api/errors";
import { bodyOf, ok, toHttpResult } from "../../functions/api/http";
import { localClockBody } from "../../functions/api/merchant-api-schemas";
import { buildOpenApiDocument } from "../../functions/api/openapi";
import type { ChargePolicy } from "../../functions/core/base/charge-policy";
import { readBillingConfig } from "../../lib/config";
import { functionNameVariable, INVOKED_FUNCTIONS, isInvokedFunction } from "../../lib/stack-outputs";
import type { FaultConfigOrSettings } from "../../sandbox/faults/faults";
import { addIsoDuration, parseIsoDuration } from "../../sandbox/time/iso-duration";
import { sandboxControl } from "../clients/sandbox-controls";
import { EventSourceMapping } from "../lambda/event-source-mapping";
import { LocalHttpApi } from "../lambda/http-api";
import { scheduledEvent } from "../lambda/lambda-context";
import { LambdaFunctions } from "../lambda/lambda-functions";
import { DEFAULT_JUMP_RESOLUTION, LocalScheduler } from "../lambda/scheduler";
import type { LocalTableStream } from "../lambda/table-stream";
import { BillingStack, type BillingStackOptions } from "./billing-stack";
import { type AnyDecoration, decoratedComposition } from "./crash-injection";
import { answerLocalMail } from "./mail-inbox";
import { TRY_IT_PAGE_ROUTES, tryItPages } from "./try-it-page";

/** Re-exported for bin/start.ts, which loads this module anyway. */
export { LOCAL_OUTPUTS_FILE, type LocalOutputs };

export interface LocalStackOptions {
  /** The merchant API's port (0 picks a free one). */
  readonly port?: number;
  readonly sandboxPort?: number;
  /** The merchant API key; a random one is generated when unset. */
  readonly apiKey?: string;
  /** dynalite's LevelDB directory (in memory when unset). */
  readonly dataDir?: string;
  /** A DynamoDB endpoint instead of dynalite (BillingStackOptions.dynamoDbEndpoint). */
  readonly dynamoDbEndpoint?: string;
  /** Where the shared clock starts (now by default). */
  readonly start?: Date;
  /** The clock follows the wall clock between jumps (default true); false: it moves only when told. */
  readonly realTime?: boolean;
  /**
   * Fires of one schedule closer than this are merged while the clock jumps (ISO 8601, default P1D). Each fire of the
   * charge run or the attempt sweep costs ~50 ms of dynalite queries (16 shards), so a 31-day jump firing every 5
   * minutes would take minutes; PT5M fires every one.
   */
  readonly jumpResolution?: string;
  readonly seed?: number;
  readonly faults?: FaultConfigOrSettings;
  readonly policy?: Partial<ChargePolicy>;
  readonly declineCodes?: BillingStackOptions["declineCodes"];
  readonly maxReceiveCount?: number;
  /**
   * Batches the charge worker (process-charges' event source mapping) runs at once; the function table's maximum
   * concurrency when unset. Each batch's records are charged side by side (up to the batch size).
   */
  readonly workerConcurrency?: number;
  /** Records per batch of the charge worker; the function table's batch size when unset. */
  readonly workerBatchSize?: number;
  /** false: the schedules do not fire (the caller runs the charge run and the attempt sweep, e.g. the chaos run). */
  readonly schedules?: boolean;
  /** false: nothing consumes the charge queue (the caller runs its own workers). */
  readonly chargeWorker?: boolean;
  /** false: nothing delivers the outboxes (the caller runs its own table stream, e.g. the chaos run). */
  readonly eventStream?: boolean;
  readonly visibilityTimeoutSeconds?: number;
  /** The gateway timeout of the in-process services (stack.services); the handlers keep a deployed function's. */
  readonly gatewayTimeoutMs?: number;
  /**
   * How long send-webhooks waits for an endpoint's answer (a deployed function's 10 s when unset): a run whose
   * receivers hang on purpose (the chaos run) waits less.
   */
  readonly webhookTimeoutMs?: number;
  /** Where failures of scheduled runs, batches and requests are reported (stderr by default). */
  readonly onError?: (where: string, error: unknown) => void;
  /** What every function the stack runs meets wrapped, e.g. crashes (crash-injection.ts). */
  readonly decorations?: readonly AnyDecoration[];
}

/** The schedules of a deployment with this repository's cdk.json context. */
function deployedSchedules() {
  const cdkJson = z
    .object({ context: z.record(z.string(), z.unknown()).default({}) })
    .parse(JSON.parse(readFileSync(new URL("../../cdk.json", import.meta.url), "utf8")));
  return readBillingConfig((key) => cdkJson.context[key]).schedules;
}

const PERSISTED_TABLE_NAME = "billing";

/**
 * The whole system on one machine, wired as AWS wires it: the real handlers of the function table behind a local
 * HTTP API (API Gateway v2 events, the merchant authorizer), SQS event source mappings on local-aws-sqs, the
 * schedules firing on the shared clock, the SDK reaching dynalite, local-aws-sqs and the Secrets Manager and
 * EventBridge stand-ins through AWS_ENDPOINT_URL_*, and the gateway sandbox on the same clock.
 *
 * The handlers are composed over the stack's variables (functions/composition), never through process.env: several
 * local stacks can run in one process.
 */
export class LocalStack {
  #closing: Promise<void> | undefined;

  private constructor(
    readonly stack: BillingStack,
    readonly url: string,
    /** Set only when generated (the caller prints it once). */
    readonly generatedApiKey: string | undefined,
    readonly apiKey: string,
    private readonly parts: {
      readonly server: Server;
      readonly scheduler: LocalScheduler;
      readonly mappings: readonly EventSourceMapping[];
      readonly streams: readonly LocalTableStream[];
      readonly stopTicking: () => void;
      /** Waits for a clock move, then for the queues to drain. */
      readonly moveClock: (move: Promise<Date>) => Promise<Date>;
      readonly functions: LambdaFunctions;
    },
  ) {}

  static async start(options: LocalStackOptions = {}): Promise<LocalStack> {
    const onError =
      options.onError ?? ((where, error) => console.error(`local stack: ${where} failed:`, error));
    const server = createServer();
    const url = await listen(server, options.port ?? 0);
    const stack = await BillingStack.start({
      start: options.start,
      seed: options.seed,
      faults: options.faults,
      policy: options.policy,
      declineCodes: options.declineCodes,
      maxReceiveCount: options.maxReceiveCount,
      visibilityTimeoutSeconds: options.visibilityTimeoutSeconds,
      gatewayTimeoutMs: options.gatewayTimeoutMs,
      decorations: options.decorations,
      webhookBaseUrl: `${url}/webhooks`,
      pagesBaseUrl: url,
      sandboxPort: options.sandboxPort,
      dataDir: options.dataDir,
      dynamoDbEndpoint: options.dynamoDbEndpoint,
      tableName: options.dataDir === undefined ? undefined : PERSISTED_TABLE_NAME,
    });
    // The gateway's CHARGEBACK webhooks reach local mode, as the merchant registers the URL with the real gateway.
    await sandboxControl(
      stack.sandbox.url,
      "/sandbox/webhooks/chargeback-url",
      { url: `${url}/webhooks/gateway` },
      "PUT",
    );
    const apiKey = options.apiKey ?? `mk_local_${randomBytes(24).toString("base64url")}`;
    const apiKeySecretArn = stack.secretsManager.setSecret(
      "billing/merchant-api-keys",
      JSON.stringify({ sha256: [hashApiKey(apiKey)] }),
    );
    const functions = new LambdaFunctions(
      decoratedComposition(
        stack.compose(
          options.webhookTimeoutMs === undefined ? {} : { webhookTimeoutMs: options.webhookTimeoutMs },
          { MERCHANT_API_KEY_HASH_SECRET_ARN: apiKeySecretArn },
        ),
        options.decorations ?? [],
      ),
    );
    const { queueUrls } = stack;
    const consumed = functions
      .withTrigger("queue")
      .filter(({ trigger }) => options.chargeWorker !== false || trigger.queue !== "charge");
    const mappings = consumed.map(
      ({ spec, trigger }) =>
        new EventSourceMapping({
          client: stack.sqs.client,
          queueUrl: queueUrls[trigger.queue],
          batchSize: (trigger.queue === "charge" ? options.workerBatchSize : undefined) ?? trigger.batchSize,
          concurrency:
            (trigger.queue === "charge" ? options.workerConcurrency : undefined) ?? spec.concurrency ?? 5,
          invoke: (event) => functions.invoke(spec.name, event),
          onError: (error) => onError(spec.name, error),
        }),
    );
    const streams =
      options.eventStream === false
        ? []
        : [stack.tableStream({ functions, onError: (error) => onError("publish-events", error) })];
    const webhookMappings = mappings.filter(
      (_mapping, index) => consumed[index]?.trigger.queue === "webhook",
    );
    const drainQueues = async () => {
      // Intake work can enqueue charges (a window result completes a sign-up): intake first. The events their
      // writes announced are delivered last.
      for (const mapping of mappings.toReversed()) await mapping.drain();
      for (const stream of streams) await stream.drain();
      // The bus's rules (the customer mails, the webhooks' fan-out) finish what the delivered events started, and
      // the webhooks they queued get their first attempt.
      await stack.eventBridge.settled();
      for (const mapping of webhookMappings) await mapping.drain();
    };
    const schedules = deployedSchedules();
    const scheduler = new LocalScheduler(
      stack.clock,
      functions.withTrigger("schedule").map(({ spec, trigger }) => ({
        name: spec.name,
        expression: schedules[trigger.schedule],
        run: async (at: Date) => {
          await functions.invoke(spec.name, scheduledEvent(at.toISOString()));
          // Let the workers finish what the run enqueued before the clock moves on.
          await drainQueues();
        },
      })),
      {
        jumpResolutionMs: durationMs(options.jumpResolution ?? DEFAULT_JUMP_RESOLUTION),
        onError,
        // What the sandbox sent at a step (a chargeback, a recurring notice) is received before time moves on.
        afterStep: async () => {
          await stack.sandbox.deliveries.settled();
          await drainQueues();
        },
      },
    );
    const moveClock = async (move: Promise<Date>) => {
      const now = await move;
      await drainQueues();
      return now;
    };
    const api = new LocalHttpApi({
      functions,
      localRoutes: {
        advanceLocalClock: async (event: APIGatewayProxyEventV2) => {
          try {
            const { advance } = bodyOf(event, localClockBody);
            const now = await moveClock(scheduler.jump(advance));
            return toHttpResult(ok({ now: now.toISOString() }));
          } catch (error) {
            return toHttpResult(toErrorResponse(error));
          }
        },
        listLocalMail: async (event: APIGatewayProxyEventV2) => answerLocalMail(event, stack.ses),
      },
      localPages: tryItPages(url, apiKey),
      openApiDocument: async () => toHttpResult(ok(buildOpenApiDocument({ serverUrl: url, local: true }))),
      now: () => stack.clock.now(),
      onError,
    });
    server.on("request", api.listener);
    server.on("clientError", api.clientErrorListener);
    for (const mapping of mappings) mapping.start();
    for (const stream of streams) stream.start();
    if (options.schedules !== false) scheduler.start();
    const stopTicking = options.realTime === false ? () => undefined : followWallClock(stack);
    return new LocalStack(stack, url, options.apiKey === undefined ? apiKey : undefined, apiKey, {
      server,
      scheduler,
      mappings,
      streams,
      stopTicking,
      moveClock,
      functions,
    });
  }

  /**
   * What a client of this stack needs (the ops CLI reads it from .local/outputs.json): the URLs, the API key, and
   * the variables a handler gets, which point the SDK at the emulators, plus the dead-letter queues and the
   * functions the CLI invokes.
   */
  outputs(): LocalOutputs {
    return {
      apiUrl: this.url,
      apiKey: this.apiKey,
      sandboxUrl: this.sandboxUrl,
      environment: {
        ...this.stack.variables(),
        ...this.stack.endpointVariables(),
        CHARGE_DLQ_URL: this.stack.chargeQueue.dlqUrl,
        INTAKE_DLQ_URL: this.stack.intakeQueue.dlqUrl,
        WEBHOOK_DLQ_URL: this.stack.webhookQueue.dlqUrl,
        // Lambda's Invoke API is answered by this stack's own server, the functions named by their handlers.
        AWS_ENDPOINT_URL_LAMBDA: this.url,
        ...Object.fromEntries(
          Object.keys(INVOKED_FUNCTIONS)
            .filter(isInvokedFunction)
            .map((handler) => [functionNameVariable(handler), handler]),
        ),
      },
    };
  }

  get sandboxUrl(): string {
    return this.stack.sandbox.url;
  }

  /** The try-it page: a person starts a hosted checkout in a browser (local/stack/try-it-page.ts). */
  get tryItUrl(): string {
    return `${this.url}${TRY_IT_PAGE_ROUTES.page.path}`;
  }

  get clock() {
    return this.stack.clock;
  }

  /** Invokes a function of the table as Lambda would (its middleware, this stack's composition). */
  invoke(functionName: string, event: unknown): Promise<unknown> {
    return this.parts.functions.invoke(functionName, event);
  }

  /** Moves the clock as POST /local/clock does. */
  advanceClock(duration: string): Promise<Date> {
    return this.parts.moveClock(this.parts.scheduler.jump(duration));
  }

  /** Moves the clock forward to `target` the same way. */
  setClock(target: Date): Promise<Date> {
    return this.parts.moveClock(this.parts.scheduler.jumpTo(target));
  }

  /** Stops the HTTP API, the pollers, the scheduler and every emulator; leaves no handle open. */
  close(): Promise<void> {
    this.#closing ??= this.#close();
    return this.#closing;
  }

  async #close(): Promise<void> {
    const { server, scheduler, mappings, streams, stopTicking } = this.parts;
    stopTicking();
    scheduler.stop();
    server.closeAllConnections();
    await new Promise<void>((resolve) => server.close(() => resolve()));
    await Promise.all([...mappings, ...streams].map((consumer) => consumer.stop()));
    await this.stack.close();
  }
}

async function listen(server: Server, port: number): Promise<string> {
  await new Promise<void>((resolve, reject) => {
    server.once("error", reject);
    server.listen(port, "127.0.0.1", () => resolve());
  });
  const address = server.address();
  if (address === null || typeof address === "string")
    throw new Error("the HTTP API is not listening on TCP");
  return `http://127.0.0.1:${address.port}`;
}

/** Moves the shared clock with the wall clock, one tick a second, never two moves at once. */
function followWallClock(stack: BillingStack): () => void {
  let last = Date.now();
  let timer: NodeJS.Timeout | undefined;
  let stopped = false;
  const tick = async () => {
    const now = Date.now();
    await stack.clock.advance(Math.max(0, now - last)).catch(() => undefined);
    last = now;
    if (!stopped) timer = setTimeout(tick, 1000);
  };
  timer = setTimeout(tick, 1000);
  return () => {
    stopped = true;
    clearTimeout(timer);
  };
}

/** Milliseconds of a fixed-length ISO 8601 duration (PT1H, P1D; no months or years). */
function durationMs(duration: string): number {
  const parsed = parseIsoDuration(duration);
  if (parsed === undefined || parsed.years !== 0 || parsed.months !== 0)
    throw new RangeError(`jump resolution ${duration} must be an ISO 8601 duration of weeks, days or less`);
  return addIsoDuration(new Date(0), parsed).getTime();
}
