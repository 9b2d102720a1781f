import { fileURLToPath } from "node:url";
import { ArnFormat, Duration, RemovalPolicy, Stack } from "aws-cdk-lib";
import type { ITableV2 } from "aws-cdk-lib/aws-dynamodb";
import type { IEventBus } from "aws-cdk-lib/aws-events";
import { type IManagedPolicy, PolicyStatement, Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import {
  Architecture,
  FilterCriteria,
  FilterRule,
  type ILayerVersion,
  Runtime,
  StartingPosition,
  Tracing,
} from "aws-cdk-lib/aws-lambda";
import { SqsDestination } from "aws-cdk-lib/aws-lambda-destinations";
import { DynamoEventSource, SqsDlq, SqsEventSource } from "aws-cdk-lib/aws-lambda-event-sources";
import { LogLevel, NodejsFunction, OutputFormat } from "aws-cdk-lib/aws-lambda-nodejs";
import { LogGroup, type RetentionDays } from "aws-cdk-lib/aws-logs";
import type { IBucket } from "aws-cdk-lib/aws-s3";
import type { ISecret } from "aws-cdk-lib/aws-secretsmanager";
import type { IQueue } from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import type { z } from "zod";
import { DEFAULT_SERVICE_NAME } from "../functions/lambda/observability";
import type { GatewayUrls } from "./config";
import { LAMBDA_BUNDLING, LAMBDA_MEMORY_MB } from "./lambda-bundling";
import { acknowledge } from "./nag";

const PROJECT_ROOT = fileURLToPath(new URL("..", import.meta.url));
/** Retries of a failing stream batch before its position is sent to the dead-letter queue. */
const STREAM_RETRIES = 10;

/**
 * The DynamoDB actions the adapters issue (single-item conditional writes, queries on the GSIs, batch reads of what a
 * keys-only index lists, the event log's batch writes); test/infra holds them to the commands in functions/adapters/.
 */
export const TABLE_ACTIONS = {
  read: ["dynamodb:GetItem", "dynamodb:BatchGetItem", "dynamodb:Query"],
  readWrite: [
    "dynamodb:GetItem",
    "dynamodb:BatchGetItem",
    "dynamodb:Query",
    "dynamodb:PutItem",
    "dynamodb:UpdateItem",
    "dynamodb:BatchWriteItem",
    // De-duplication and idempotency records are deleted when the work they guard fails.
    "dynamodb:DeleteItem",
  ],
} as const;

export type TableAccess = keyof typeof TABLE_ACTIONS;
export type QueueAccess = "send" | "consume";
export type SecretAccess = "read" | "readWrite";

/** A variable naming a secret: the secret's ARN, never its value. */
export type SecretVariable = `${string}_ARN`;

export interface BillingFunctionProps {
  /** The function's name in functions/function-table.ts. */
  readonly handler: string;
  /** Its generated entry module (lib/lambda-bundling.ts). */
  readonly entry: string;
  /** The variables of the handler's service set: synth fails unless the binds match them. */
  readonly environment: z.ZodObject;
  readonly timeout: Duration;
  readonly logRetention: RetentionDays;
  /** Reserved concurrency: at most this many at once (and never throttled by other functions). */
  readonly reservedConcurrency?: number;
  /** Asynchronous invocations (schedules) that fail every retry go to this queue. */
  readonly asyncDeadLetters?: {
    readonly queue: IQueue;
    readonly retryAttempts: number;
    readonly maxEventAge: Duration;
  };
}

/**
 * Every Lambda function of the service: a handler bundled by esbuild (minified ESM, AWS SDK from the runtime),
 * nodejs22.x on arm64, X-Ray active, its own log group with a retention and a role that may write only there.
 * Each bind* method pairs an environment variable with the least grant that makes it usable, and a synth-time check
 * compares the variables set with what the handler's environment schema reads.
 */
export class BillingFunction extends NodejsFunction {
  readonly handlerName: string;
  readonly #variables = new Map<string, string>();
  readonly #reads: z.ZodObject;
  #callsGateway = false;
  /** The one statement of the table's grants. */
  #tableStatement: PolicyStatement | undefined;
  #concurrencyBound: boolean;

  constructor(scope: Construct, id: string, props: BillingFunctionProps) {
    const logGroup = new LogGroup(scope, `${id}Logs`, {
      retention: props.logRetention,
      removalPolicy: RemovalPolicy.RETAIN,
    });
    const role = new Role(scope, `${id}Role`, {
      assumedBy: new ServicePrincipal("lambda.amazonaws.com"),
      description: `Runs the ${props.handler} handler`,
    });
    logGroup.grantWrite(role);
    super(scope, id, {
      entry: props.entry,
      handler: "handler",
      projectRoot: PROJECT_ROOT,
      depsLockFilePath: `${PROJECT_ROOT}package-lock.json`,
      runtime: Runtime.NODEJS_22_X,
      architecture: Architecture.ARM_64,
      memorySize: LAMBDA_MEMORY_MB,
      timeout: props.timeout,
      tracing: Tracing.ACTIVE,
      logGroup,
      role,
      reservedConcurrentExecutions: props.reservedConcurrency,
      description: `billing: ${props.handler}`,
      environment: { POWERTOOLS_SERVICE_NAME: DEFAULT_SERVICE_NAME },
      ...(props.asyncDeadLetters && {
        onFailure: new SqsDestination(props.asyncDeadLetters.queue),
        retryAttempts: props.asyncDeadLetters.retryAttempts,
        maxEventAge: props.asyncDeadLetters.maxEventAge,
      }),
      bundling: {
        ...LAMBDA_BUNDLING,
        format: OutputFormat.CJS,
        mainFields: [...LAMBDA_BUNDLING.mainFields],
        externalModules: [...LAMBDA_BUNDLING.externalModules],
        define: { ...LAMBDA_BUNDLING.define },
        sourceMap: false,
        logLevel: LogLevel.WARNING,
      },
    });
    this.handlerName = props.handler;
    this.#reads = props.environment;
    this.#concurrencyBound = props.reservedConcurrency !== undefined;
    acknowledge(
      role,
      "AwsSolutions-IAM5",
      "X-Ray PutTraceSegments/PutTelemetryRecords support no resource-level permissions (tracing active).",
      "Resource::*",
    );
    acknowledge(
      this,
      "AwsSolutions-L1",
      "nodejs22.x is pinned on purpose: the code and its dependencies (Powertools 2.35, middy 6) are tested on Node 20/22; move to the next runtime after testing on it.",
    );
    this.node.addValidation({ validate: () => this.#problems() });
  }

  /** TABLE_NAME; the table and its indexes, with the repository's actions only. */
  bindTable(table: ITableV2, indexes: readonly string[], access: TableAccess): this {
    this.#set("TABLE_NAME", table.tableName);
    // Components that read and ones that write share one statement: the union of their actions.
    if (this.#tableStatement !== undefined) {
      const granted = new Set(this.#tableStatement.actions);
      this.#tableStatement.addActions(...TABLE_ACTIONS[access].filter((action) => !granted.has(action)));
      return this;
    }
    this.#tableStatement = new PolicyStatement({
      actions: [...TABLE_ACTIONS[access]],
      resources: [table.tableArn, ...indexes.map((index) => `${table.tableArn}/index/${index}`)],
    });
    this.addToRolePolicy(this.#tableStatement);
    return this;
  }

  /** <variable>: the queue URL, with send or consume rights. */
  bindQueue(variable: `${string}_QUEUE_URL`, queue: IQueue, access: QueueAccess): this {
    this.#set(variable, queue.queueUrl);
    if (access === "send") queue.grantSendMessages(this);
    if (access === "consume") queue.grantConsumeMessages(this);
    return this;
  }

  /**
   * Consumes the queue through an event source mapping: partial batch failures, a bounded batching window and at most
   * `maxConcurrency` concurrent batches (which also bounds the calls a consumer makes to the gateway).
   */
  consumeQueue(
    queue: IQueue,
    options: { readonly batchSize: number; readonly maxConcurrency: number },
  ): this {
    this.addEventSource(
      new SqsEventSource(queue, {
        batchSize: options.batchSize,
        maxBatchingWindow: Duration.seconds(5),
        reportBatchItemFailures: true,
        maxConcurrency: options.maxConcurrency,
      }),
    );
    this.#concurrencyBound = true;
    return this;
  }

  /**
   * The table's stream, in order per item: a failing record is retried (ReportBatchItemFailures, the batch halved
   * around it) until it ages out, then its position goes to `deadLetters` and the outbox sweep delivers its events.
   */
  consumeTableStream(table: ITableV2, deadLetters: IQueue, batchSize: number): this {
    this.addEventSource(
      new DynamoEventSource(table, {
        startingPosition: StartingPosition.TRIM_HORIZON,
        batchSize,
        maxBatchingWindow: Duration.seconds(1),
        bisectBatchOnError: true,
        reportBatchItemFailures: true,
        retryAttempts: STREAM_RETRIES,
        maxRecordAge: Duration.hours(6),
        onFailure: new SqsDlq(deadLetters),
        // Only writes that leave events in an outbox; a delivery's own write (it empties the outbox) is skipped.
        filters: [FilterCriteria.filter({ dynamodb: { NewImage: { outbox: { L: FilterRule.exists() } } } })],
      }),
    );
    return this;
  }

  /** <variable>: the secret's ARN; read, or read and write (the partner-token refresher). */
  bindSecret(variable: SecretVariable, secret: ISecret, access: SecretAccess): this {
    this.#set(variable, secret.secretArn);
    secret.grantRead(this);
    if (access === "readWrite") {
      // PutSecretValue only: grantWrite would also allow UpdateSecret (description, KMS key).
      this.addToRolePolicy(
        new PolicyStatement({ actions: ["secretsmanager:PutSecretValue"], resources: [secret.secretArn] }),
      );
    }
    return this;
  }

  /** EVENT_BUS_NAME, with PutEvents on that bus only. */
  bindEventBus(bus: IEventBus): this {
    this.#set("EVENT_BUS_NAME", bus.eventBusName);
    bus.grantPutEventsTo(this);
    return this;
  }

  /** The gateway: its base URLs and the credentials secret (read). A gateway caller must bound its concurrency. */
  bindGateway(secret: ISecret, urls: GatewayUrls): this {
    this.bindSecret("GATEWAY_SECRET_ARN", secret, "read");
    this.#set("PAYMENT_BASE_URL", urls.paymentBaseUrl);
    this.#set("WEBHOOK_ADMIN_BASE_URL", urls.webhookAdminBaseUrl);
    this.#set("PARTNER_BASE_URL", urls.partnerBaseUrl);
    this.#callsGateway = true;
    return this;
  }

  /** A plain setting (a URL, a policy): no grant. Never a secret: secrets are bound by ARN. */
  /**
   * ses:SendEmail as the merchant's sender only: its address's identity or its domain's (whichever SES verified), and
   * the configuration set when one is named.
   */
  bindMailSender(from: string, configurationSet: string | undefined): this {
    const address = /<([^>]+)>/.exec(from)?.[1] ?? from;
    const domain = address.slice(address.lastIndexOf("@") + 1);
    const stack = Stack.of(this);
    const arn = (resource: string, resourceName: string) =>
      stack.formatArn({ service: "ses", resource, resourceName, arnFormat: ArnFormat.SLASH_RESOURCE_NAME });
    this.addToRolePolicy(
      new PolicyStatement({
        actions: ["ses:SendEmail"],
        resources: [
          arn("identity", address),
          arn("identity", domain),
          ...(configurationSet === undefined ? [] : [arn("configuration-set", configurationSet)]),
        ],
      }),
    );
    return this;
  }

  /**
   * DOCUMENT_BUCKET_NAME with the stateful stack's policy on its files (get, put, list), and the fonts layer, whose
   * files land in /opt (DOCUMENT_FONT_DIR).
   */
  bindDocumentFiles(bucket: IBucket, access: IManagedPolicy, fonts: ILayerVersion): this {
    this.#set("DOCUMENT_BUCKET_NAME", bucket.bucketName);
    this.#set("DOCUMENT_FONT_DIR", "/opt");
    this.role?.addManagedPolicy(access);
    this.addLayers(fonts);
    return this;
  }

  bindSetting(variable: string, value: string): this {
    this.#set(variable, value);
    return this;
  }

  #set(variable: string, value: string): void {
    const existing = this.#variables.get(variable);
    if (existing !== undefined && existing !== value) {
      throw new Error(`${this.node.path}: ${variable} is bound twice to different values`);
    }
    this.#variables.set(variable, value);
    this.addEnvironment(variable, value);
  }

  /** The handler's schema decides: every required variable bound, nothing bound that it does not read. */
  #problems(): string[] {
    const shape = this.#reads.shape;
    const problems: string[] = [];
    for (const [variable, schema] of Object.entries(shape)) {
      const optional = schema.safeParse(undefined).success;
      if (!optional && !this.#variables.has(variable)) {
        problems.push(`${this.handlerName} reads ${variable}, but no bind sets it`);
      }
    }
    for (const variable of this.#variables.keys()) {
      if (!(variable in shape))
        problems.push(`${this.handlerName} does not read ${variable}, yet it is bound`);
    }
    if (this.#callsGateway && !this.#concurrencyBound) {
      problems.push(
        `${this.handlerName} calls the gateway: give it a reserved concurrency or a queue maxConcurrency`,
      );
    }
    return problems;
  }
}
