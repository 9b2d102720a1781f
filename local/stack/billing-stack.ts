import { randomBytes } from "node:crypto";
import { sqsClientOf } from "../../functions/adapters/aws/sqs-client";
import { createDynamoDbBillingRepository } from "../../functions/adapters/dynamodb/dynamodb-billing-repository";
import { initializeDueWatermark } from "../../functions/adapters/table/due-index";
import { type Composition, type CompositionTuning, compose } from "../../functions/composition/compose";
import { createRuntime, type Runtime, type RuntimeOptions } from "../../functions/composition/runtime";
import type { ServicesOf } from "../../functions/composition/service-set";
import * as SERVICE_SETS from "../../functions/composition/service-sets";
import type { ChargePolicy } from "../../functions/core/base/charge-policy";
import { type OutboxEvent, outboxEventSchema } from "../../functions/core/base/events";
import type { ChargeRunReport } from "../../functions/core/charging/charge-run";
import { WEBHOOK_MAX_RECEIVE_COUNT } from "../../functions/core/delivery/webhooks";
import type { AttemptSweepReport } from "../../functions/core/intake/attempt-sweep";
import { MAIL_TEMPLATES } from "../../functions/core/ports/mailer";
import { type FunctionName, functionNamed, type QueueName } from "../../functions/function-table";
import type { DeclineCodes } from "../../functions/gateway/decline-codes";
import { documentFontDir } from "../../lib/document-fonts";
import type { FaultConfigOrSettings } from "../../sandbox/faults/faults";
import { type Sandbox, startSandbox } from "../../sandbox/server";
import { type Merchant, TEST_MERCHANT } from "../../sandbox/state/merchant-config";
import {
  connectDynamoDb,
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  type LocalDynamoDb,
  startDynalite,
} from "../aws/dynamodb-emulator";
import {
  type EventBridgeStandIn,
  type PublishedEntry,
  startEventBridgeStandIn,
} from "../aws/eventbridge-stand-in";
import { type LocalS3, startS3 } from "../aws/s3-emulator";
import { type SecretsManagerStandIn, startSecretsManagerStandIn } from "../aws/secrets-manager-stand-in";
import { type SesStandIn, startSesStandIn } from "../aws/ses-stand-in";
import { type LocalSqs, type QueueWithDlq, startSqs } from "../aws/sqs-emulator";
import { deliverBatch } from "../lambda/event-source-mapping";
import { scheduledEvent } from "../lambda/lambda-context";
import { LambdaFunctions } from "../lambda/lambda-functions";
import { receiveLambdaEvent } from "../lambda/sqs-lambda-event";
import { LocalTableStream, type StreamPassReport } from "../lambda/table-stream";
import { type AnyDecoration, decoratedComposition } from "./crash-injection";

/** The gateway client's patience in local mode: a deployment's timeout and the quickest read retry (the sandbox answers at once). */
export const LOCAL_GATEWAY_TUNING = { gatewayTimeoutMs: 2_000, gatewayReadRetryMinDelayMs: 10 } as const;

export interface BillingStackOptions {
  /** Where the shared clock starts (the sandbox's and ours). */
  readonly start?: Date;
  readonly seed?: number;
  readonly faults?: FaultConfigOrSettings;
  readonly policy?: Partial<ChargePolicy>;
  /** Overrides of the gateway's refusals that no retry can mend (GATEWAY_DECLINE_CODES). */
  readonly declineCodes?: Partial<DeclineCodes>;
  /** Receives of a charge message before the redrive policy moves it to the DLQ. */
  readonly maxReceiveCount?: number;
  /** Seconds a received charge message stays invisible (default 30): a crashed worker's message returns after it. */
  readonly visibilityTimeoutSeconds?: number;
  readonly gatewayTimeoutMs?: number;
  /** Public base of our webhooks (recurring_noti_url): the local HTTP API's `<url>/webhooks`. */
  readonly webhookBaseUrl?: string;
  /** Where our pages are served (local mode's server); unreachable by default. */
  readonly pagesBaseUrl?: string;
  /**
   * What the stack's own functions (its bus rules, its drains) meet wrapped, e.g. crashes (crash-injection.ts);
   * `services` and `composition` stay plain.
   */
  readonly decorations?: readonly AnyDecoration[];
  /** The sandbox's port (0, the default, picks a free one). */
  readonly sandboxPort?: number;
  /** Where dynalite keeps its data across restarts (in memory when unset). */
  readonly dataDir?: string;
  /**
   * A DynamoDB endpoint to use instead of dynalite, e.g. AWS's DynamoDB Local (README, Test tiers); each stack makes
   * its own table there. BILLING_DYNAMODB_ENDPOINT when unset, so the whole proof (tests, local mode, the demo, the
   * chaos run) runs on it unchanged.
   */
  readonly dynamoDbEndpoint?: string;
  /** The billing table's name (a fresh one when unset; give one to find a persisted table again). */
  readonly tableName?: string;
}

/** The merchant's name our pages show in local mode. */
export const LOCAL_MERCHANT_NAME = "Sandbox Shop";
/** The local merchant's page of what it sells: the link of every product line sent to the sandbox. */
const LOCAL_PRODUCT_LINK = "https://shop.example/pricing";

/** Local mode's mail settings: every mail the merchant can send, from the sandbox shop. */
export const LOCAL_MAIL_SETTINGS = {
  from: "Sandbox Shop <billing@sandbox-shop.test>",
  support_email: "support@sandbox-shop.test",
  templates: [...MAIL_TEMPLATES],
} as const;

/** The gateway secret's JSON for a sandbox merchant. */
export function gatewaySecretOf(merchant: Merchant) {
  const { mid, apiKey, aesKeyHex, partnerApiKey } = merchant;
  return { mid, apiKey, aesKey: aesKeyHex, partnerApiKey };
}

/** Records process-charges was given, and those it reported as failures (left to come back). */
export interface DrainReport {
  readonly processed: number;
  readonly failed: number;
}

/**
 * The billing system's infrastructure on one machine: dynalite (or the DynamoDB endpoint given), local-aws-sqs, the
 * Secrets Manager and EventBridge stand-ins and the gateway sandbox on loopback, one shared clock, the variables a
 * function gets on AWS, and the function table's functions over a composition of those variables (`functions`), as
 * a Lambda container composes over its environment: the charge run, the attempt sweep and the charge worker are
 * invoked through them. `services` is the billing core's service set of that composition, for reading state.
 */
export class BillingStack {
  private constructor(
    readonly sandbox: Sandbox,
    readonly dynamo: LocalDynamoDb,
    readonly sqs: LocalSqs,
    readonly chargeQueue: QueueWithDlq,
    /** Where the webhook receivers queue what process-intake handles. */
    readonly intakeQueue: QueueWithDlq,
    /**
     * Our webhooks to the SaaS, one message per event and endpoint (send-webhooks consumes it). Its visibility
     * timeouts, the retries' backoff, run on the stack's clock.
     */
    readonly webhookQueue: QueueWithDlq,
    readonly secretsManager: SecretsManagerStandIn,
    /** Where every published event lands (`events` reads them back); its rules invoke their functions. */
    readonly eventBridge: EventBridgeStandIn,
    /** Where every customer mail lands. */
    readonly ses: SesStandIn,
    /** Where documents' PDFs are kept. */
    readonly s3: LocalS3,
    /** SDK clients reaching the emulators, on the shared clock. */
    readonly runtime: Runtime,
    /** What `runtime` was created with: another runtime like it is another container's. */
    readonly runtimeOptions: RuntimeOptions,
    /** The composition over `variables()`, with the stack's gateway timeout. */
    readonly composition: Composition,
    /** The billing core's services of that composition. */
    readonly services: ServicesOf<typeof SERVICE_SETS.billing>,
    /** What delivers the outboxes to the bus (the table's stream and its function on AWS). */
    readonly delivery: ServicesOf<typeof SERVICE_SETS.eventDelivery>,
    /** The function table's functions over `composition`, invoked as Lambda would. */
    readonly functions: LambdaFunctions,
    private readonly settings: {
      readonly tableName: string;
      readonly gatewaySecretArn: string;
      readonly webhookSecretsArn: string;
      readonly partnerTokenSecretArn: string;
      readonly webhookBaseUrl: string;
      readonly pagesBaseUrl: string;
      readonly pageLinkSecretArn: string;
      readonly policy?: Partial<ChargePolicy>;
      readonly declineCodes?: Partial<DeclineCodes>;
    },
  ) {}

  static async start(options: BillingStackOptions = {}): Promise<BillingStack> {
    const sandbox = await startSandbox({
      port: options.sandboxPort ?? 0,
      start: options.start,
      seed: options.seed,
      faults: options.faults,
    });
    const endpoint = options.dynamoDbEndpoint ?? process.env.BILLING_DYNAMODB_ENDPOINT;
    const dynamo =
      endpoint === undefined || endpoint === ""
        ? await startDynalite({ path: options.dataDir })
        : connectDynamoDb(endpoint);
    const sqs = await startSqs();
    const tableName = await dynamo.createBillingTable(options.tableName);
    await initializeDueWatermark(dynamo.client, tableName, sandbox.clock.now());
    const chargeQueue = await sqs.createQueueWithDlq("charge-work", {
      maxReceiveCount: options.maxReceiveCount ?? 8,
      visibilityTimeout: options.visibilityTimeoutSeconds ?? 30,
    });
    const intakeQueue = await sqs.createQueueWithDlq("intake", { maxReceiveCount: 8, visibilityTimeout: 30 });
    const webhookQueue = await sqs.createQueueWithDlq("webhook-delivery", {
      maxReceiveCount: WEBHOOK_MAX_RECEIVE_COUNT,
      visibilityTimeout: 30,
      clock: sandbox.clock,
    });
    const secretsManager = await startSecretsManagerStandIn(LOCAL_REGION);
    const eventBridge = await startEventBridgeStandIn(() => sandbox.clock.now());
    const ses = await startSesStandIn(() => sandbox.clock.now());
    const s3 = await startS3();
    const gatewaySecretArn = secretsManager.setSecret(
      "billing/gateway",
      JSON.stringify(gatewaySecretOf(TEST_MERCHANT)),
    );
    const partnerTokenSecretArn = secretsManager.setSecret("billing/partner-token");
    const webhookSecretsArn = secretsManager.setSecret(
      "billing/webhook",
      JSON.stringify({ current: TEST_MERCHANT.webhookSecret }),
    );
    const pageLinkSecretArn = secretsManager.setSecret(
      "billing/page-links",
      JSON.stringify({ current: randomBytes(32).toString("base64url") }),
    );
    const runtimeOptions: RuntimeOptions = {
      region: LOCAL_REGION,
      credentials: LOCAL_CREDENTIALS,
      endpoints: {
        dynamodb: dynamo.endpoint,
        sqs: sqs.endpoint,
        secretsManager: secretsManager.endpoint,
        eventBridge: eventBridge.endpoint,
        sesv2: ses.endpoint,
        s3: s3.endpoint,
      },
      clock: sandbox.clock,
    };
    const runtime = createRuntime(runtimeOptions);
    const settings = {
      tableName,
      gatewaySecretArn,
      webhookSecretsArn,
      partnerTokenSecretArn,
      webhookBaseUrl: options.webhookBaseUrl ?? "http://127.0.0.1:9/webhooks",
      pagesBaseUrl: options.pagesBaseUrl ?? "http://127.0.0.1:9",
      pageLinkSecretArn,
      policy: options.policy,
      declineCodes: options.declineCodes,
    };
    const variables = stackVariables({ sandbox, chargeQueue, intakeQueue, webhookQueue, s3 }, settings);
    const composition = compose(runtime, variables, {
      ...LOCAL_GATEWAY_TUNING,
      ...(options.gatewayTimeoutMs !== undefined && { gatewayTimeoutMs: options.gatewayTimeoutMs }),
    });
    const functions = new LambdaFunctions(decoratedComposition(composition, options.decorations ?? []));
    // The bus's rules, as CDK makes them from the function table: each invokes its function with the bus's envelope.
    for (const { spec, trigger } of functions.withTrigger("eventRule")) {
      eventBridge.rules.push({
        name: spec.name,
        detailTypes: trigger.eventTypes,
        target: (event) => functions.invoke(spec.name, event),
      });
    }
    return new BillingStack(
      sandbox,
      dynamo,
      sqs,
      chargeQueue,
      intakeQueue,
      webhookQueue,
      secretsManager,
      eventBridge,
      ses,
      s3,
      runtime,
      runtimeOptions,
      composition,
      await SERVICE_SETS.billing.from(composition),
      await SERVICE_SETS.eventDelivery.from(composition),
      functions,
      settings,
    );
  }

  /**
   * The variables a Lambda function would get on this stack (all of them): table, queues, secret ARNs, gateway and
   * webhook URLs. The SDK endpoints are the runtime's, not variables.
   */
  variables(): Record<string, string> {
    return stackVariables(this, this.settings);
  }

  /**
   * Another composition over the same stack: the deployed defaults unless tuned (e.g. a more patient gateway client),
   * with variables added or taken away (undefined).
   */
  compose(
    tuning: CompositionTuning = {},
    variables: Record<string, string | undefined> = {},
    runtime: Runtime = this.runtime,
  ): Composition {
    return compose(runtime, { ...this.variables(), ...variables }, tuning);
  }

  /** Where the SDK reaches this stack, as variables (AWS_REGION, fake credentials, AWS_ENDPOINT_URL_*). */
  endpointVariables(): Record<string, string> {
    return {
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: this.dynamo.endpoint,
      AWS_ENDPOINT_URL_SQS: this.sqs.endpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: this.secretsManager.endpoint,
      AWS_ENDPOINT_URL_EVENTBRIDGE: this.eventBridge.endpoint,
      AWS_ENDPOINT_URL_SESV2: this.ses.endpoint,
      AWS_ENDPOINT_URL_S3: this.s3.endpoint,
    };
  }

  /**
   * The table's stream feeding publish-events, as its event source mapping does (over this stack's functions unless
   * others are given, e.g. decorated ones). Failures go to onError; what a failed delivery left stays pending.
   */
  tableStream(
    options: {
      readonly functions?: LambdaFunctions;
      readonly onError?: (error: unknown) => void;
      readonly batchSize?: number;
    } = {},
  ): LocalTableStream {
    const { functions = this.functions, onError = () => undefined } = options;
    const [stream] = functions.withTrigger("tableStream");
    if (stream === undefined) throw new Error("no function of the table reads the table's stream");
    // The stream's own reads are not the functions': on AWS they cost nothing, so they go through the emulator's
    // client, which no meter counts.
    return new LocalTableStream({
      client: this.dynamo.client,
      tableName: this.tableName,
      repository: createDynamoDbBillingRepository({ client: this.dynamo.client, tableName: this.tableName }),
      batchSize: options.batchSize ?? stream.trigger.batchSize,
      invoke: (event) => functions.invoke(stream.spec.name, event),
      onError,
      onWrite: this.dynamo.onWrite,
    });
  }

  /**
   * Delivers every outbox that holds events, whenever they occurred: one pass of the stream over publish-events, then
   * the bus's rules' invocations of what it published (the customer mails) to their end.
   */
  async deliverEvents(): Promise<StreamPassReport> {
    const report = await this.tableStream().pass();
    await this.eventBridge.settled();
    return report;
  }

  /** Every entry the bus received so far, pending outboxes delivered first. */
  async deliveredEntries(): Promise<PublishedEntry[]> {
    await this.deliverEvents();
    return this.eventBridge.entries;
  }

  /** Every event delivered so far (pending ones delivered first), in the order the bus received them. */
  async events(): Promise<OutboxEvent[]> {
    const entries = await this.deliveredEntries();
    return entries.map((entry) => outboxEventSchema.parse(JSON.parse(entry.Detail)));
  }

  /** Delivers what is pending, then forgets every event published so far. */
  async clearEvents(): Promise<void> {
    await this.deliverEvents();
    this.eventBridge.entries.length = 0;
  }

  get clock() {
    return this.sandbox.clock;
  }

  /** The billing table's name (TABLE_NAME). */
  get tableName(): string {
    return this.settings.tableName;
  }

  /** The charge run, as its schedule invokes run-charges. */
  chargeRun(): Promise<ChargeRunReport> {
    return this.functions.invoker(functionNamed("run-charges"))(
      scheduledEvent(this.clock.now().toISOString()),
    );
  }

  /** The attempt sweep, as its schedule invokes sweep-attempts. */
  attemptSweep(): Promise<AttemptSweepReport> {
    return this.functions.invoker(functionNamed("sweep-attempts"))(
      scheduledEvent(this.clock.now().toISOString()),
    );
  }

  /**
   * process-charges (over this stack's composition, or another's) fed as its event source mapping feeds it: batches
   * of the table's size, as many at once as the table's concurrency, until a receive finds nothing visible
   * (messages waiting out a retry delay are left for a later drain).
   */
  drainChargeQueue(functions: LambdaFunctions = this.functions): Promise<DrainReport> {
    return this.#drain("process-charges", this.chargeQueue, functions);
  }

  /**
   * send-webhooks fed as its event source mapping feeds it, until nothing on the webhook queue is visible: the
   * deliveries queued so far get their attempt now; a retry waits until the clock passes its time.
   */
  drainWebhookQueue(functions: LambdaFunctions = this.functions): Promise<DrainReport> {
    return this.#drain("send-webhooks", this.webhookQueue, functions);
  }

  /** The queue URLs by the function table's queue names. */
  get queueUrls(): Readonly<Record<QueueName, string>> {
    return {
      charge: this.chargeQueue.queueUrl,
      intake: this.intakeQueue.queueUrl,
      webhook: this.webhookQueue.queueUrl,
    };
  }

  async #drain(name: FunctionName, queue: QueueWithDlq, functions: LambdaFunctions): Promise<DrainReport> {
    const client = sqsClientOf(this.runtime);
    const { queueUrl } = queue;
    const spec = functionNamed(name);
    const invoke = (event: unknown) => functions.invoke(name, event);
    const batchSize = spec.trigger.kind === "queue" ? spec.trigger.batchSize : 10;
    const mapping = async (): Promise<DrainReport> => {
      let processed = 0;
      let failed = 0;
      for (;;) {
        const event = await receiveLambdaEvent(client, queueUrl, batchSize);
        if (event.Records.length === 0) return { processed, failed };
        processed += event.Records.length;
        failed += (await deliverBatch(client, queueUrl, event, invoke)).failed;
      }
    };
    const reports = await Promise.all(Array.from({ length: spec.concurrency ?? 1 }, mapping));
    return {
      processed: reports.reduce((sum, report) => sum + report.processed, 0),
      failed: reports.reduce((sum, report) => sum + report.failed, 0),
    };
  }

  async close(): Promise<void> {
    this.runtime.close();
    await this.sandbox.close();
    await Promise.all([
      this.sqs.close(),
      this.dynamo.close(),
      this.secretsManager.close(),
      this.eventBridge.close(),
      this.ses.close(),
      this.s3.close(),
    ]);
  }
}

function stackVariables(
  parts: {
    readonly sandbox: Sandbox;
    readonly chargeQueue: QueueWithDlq;
    readonly intakeQueue: QueueWithDlq;
    readonly webhookQueue: QueueWithDlq;
    readonly s3: LocalS3;
  },
  settings: BillingStack["settings"],
): Record<string, string> {
  const { tableName, gatewaySecretArn, partnerTokenSecretArn, webhookSecretsArn, webhookBaseUrl } = settings;
  const { pagesBaseUrl, pageLinkSecretArn } = settings;
  const { policy, declineCodes } = settings;
  return {
    TABLE_NAME: tableName,
    CHARGE_QUEUE_URL: parts.chargeQueue.queueUrl,
    EVENT_BUS_NAME: "billing-local",
    GATEWAY_SECRET_ARN: gatewaySecretArn,
    PARTNER_TOKEN_SECRET_ARN: partnerTokenSecretArn,
    PAYMENT_BASE_URL: parts.sandbox.url,
    WEBHOOK_ADMIN_BASE_URL: parts.sandbox.url,
    PARTNER_BASE_URL: parts.sandbox.url,
    PUBLIC_WEBHOOK_BASE_URL: webhookBaseUrl,
    PUBLIC_PAGES_BASE_URL: pagesBaseUrl,
    PAGE_LINK_SECRET_ARN: pageLinkSecretArn,
    MERCHANT_NAME: LOCAL_MERCHANT_NAME,
    MAIL_SETTINGS: JSON.stringify(LOCAL_MAIL_SETTINGS),
    INTAKE_QUEUE_URL: parts.intakeQueue.queueUrl,
    WEBHOOK_QUEUE_URL: parts.webhookQueue.queueUrl,
    // Local mode's endpoints are the merchant's own servers on this machine: http, loopback.
    WEBHOOK_URL_POLICY: "local",
    WEBHOOK_SECRETS_ARN: webhookSecretsArn,
    ...(policy === undefined ? {} : { CHARGE_POLICY: JSON.stringify(policy) }),
    ...(declineCodes === undefined ? {} : { GATEWAY_DECLINE_CODES: JSON.stringify(declineCodes) }),
    GATEWAY_PRODUCT_LINK: LOCAL_PRODUCT_LINK,
    DOCUMENT_BUCKET_NAME: parts.s3.bucket,
    DOCUMENT_FONT_DIR: documentFontDir(),
  };
}
