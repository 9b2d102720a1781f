import {
  Annotations,
  CfnElement,
  CfnOutput,
  CfnParameter,
  CfnRule,
  CrossStackReferences,
  Duration,
  Fn,
  ReferenceStrength,
  Stack,
  type StackProps,
} from "aws-cdk-lib";
import { AccessLogFormat } from "aws-cdk-lib/aws-apigateway";
import {
  HttpRoute as ApiRoute,
  HttpApi,
  HttpMethod,
  HttpNoneAuthorizer,
  HttpRouteKey,
  type IHttpRouteAuthorizer,
  LogGroupLogDestination,
} from "aws-cdk-lib/aws-apigatewayv2";
import { HttpLambdaAuthorizer, HttpLambdaResponseType } from "aws-cdk-lib/aws-apigatewayv2-authorizers";
import { HttpLambdaIntegration } from "aws-cdk-lib/aws-apigatewayv2-integrations";
import { type IEventBus, Rule } from "aws-cdk-lib/aws-events";
import { LambdaFunction } from "aws-cdk-lib/aws-events-targets";
import { Role, ServicePrincipal } from "aws-cdk-lib/aws-iam";
import { Architecture, Code, LayerVersion } from "aws-cdk-lib/aws-lambda";
import { LogGroup } from "aws-cdk-lib/aws-logs";
import {
  ContextAttribute,
  Schedule,
  ScheduleExpression,
  ScheduleTargetInput,
} from "aws-cdk-lib/aws-scheduler";
import { LambdaInvoke } from "aws-cdk-lib/aws-scheduler-targets";
import { type IQueue, Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import type { Construct } from "constructs";
import { EVENT_SOURCE } from "../functions/adapters/aws/eventbridge-publisher";
import {
  type AnyFunctionSpec,
  BILLING_FUNCTIONS,
  type HttpRoute,
  type QueueName,
} from "../functions/function-table";
import { DOCUMENT_FONT_FILES } from "../functions/lambda/environment";
import { BillingFunction } from "./billing-function";
import type { BillingConfig, ScheduleName } from "./config";
import { documentFontDir } from "./document-fonts";
import { type BindContext, bindsOf } from "./function-binds";
import { writeLambdaEntry } from "./lambda-bundling";
import { BillingMonitoring } from "./monitoring";
import { acknowledge } from "./nag";
import { INVOKED_FUNCTIONS, isInvokedFunction, type SERVICE_OUTPUTS } from "./stack-outputs";
import type { BillingStatefulResources, WorkQueue } from "./stateful-stack";

export interface BillingServiceStackProps extends StackProps {
  readonly resources: BillingStatefulResources;
  readonly config: BillingConfig;
  /** The function table (default BILLING_FUNCTIONS). */
  readonly functions?: readonly AnyFunctionSpec[];
}

/**
 * One invoke permission per function and API (any of its routes), not one per route: a function serving several
 * routes (the pages, the documents) would otherwise add a resource per route to a stack CloudFormation caps at 500.
 */
const API_SCOPED = { scopePermissionToRoute: false } as const;

/** How each schedule retries a delivery, and how long an invocation stays worth running. */
const SCHEDULES: { readonly [name in ScheduleName]: { description: string; maxEventAge: Duration } } = {
  chargeRun: {
    description: "Charge run: one charge message per due subscription",
    maxEventAge: Duration.hours(1),
  },
  attemptSweep: {
    description: "Attempt sweep: settles charge attempts left open past their lease",
    maxEventAge: Duration.minutes(5),
  },
  outboxSweep: {
    description: "Outbox sweep: delivers the events the table's stream left pending",
    maxEventAge: Duration.minutes(5),
  },
  partnerToken: { description: "Partner JWT refresher", maxEventAge: Duration.hours(1) },
  reconciliation: {
    description: "Daily reconciliation of the ledger against the gateway",
    maxEventAge: Duration.hours(6),
  },
  partnerWebhook: {
    description: "Partner PAYMENT_COMPLETED webhook registration check",
    maxEventAge: Duration.hours(6),
  },
  reminders: {
    description: "Customer mails a date calls for: trial ending, renewal ahead, card expiring",
    maxEventAge: Duration.hours(6),
  },
  revenue: {
    description: "Daily MRR and paying subscriptions per currency, for the dashboard",
    maxEventAge: Duration.hours(6),
  },
};
const SCHEDULE_RETRIES = 3;
/** EventBridge's most: a target that fails (SES throttling, say) is retried with backoff for up to a day. */
const RULE_RETRIES = 185;
/** Under the HTTP API's 30 s integration timeout, so a slow handler fails in our logs, not only at the edge. */
const DEFAULT_TIMEOUT_SECONDS = 29;
const ASYNC_RETRIES = 2;

/** Seconds a queue consumer may run: AWS wants the queue's visibility timeout ≥ 6 × the function timeout. */
const consumerTimeout = (queue: WorkQueue) =>
  Duration.seconds(Math.floor(queue.visibilityTimeout.toSeconds() / 6));

const constructId = (handler: string) =>
  handler.replace(/(^|-)([a-z])/g, (_match, _dash: string, letter: string) => letter.toUpperCase());

/**
 * The stateless half: every function of the table with its trigger (schedule, queue or HTTP route), the HTTP API with
 * the merchant authorizer, and the alarms and dashboard. Safe to destroy and redeploy; it owns no data.
 */
export class BillingServiceStack extends Stack {
  readonly api: HttpApi;
  /** Our pages for customers: their own API, so their throttle and the merchant API's never share. */
  readonly pagesApi: HttpApi;
  readonly functions: readonly BillingFunction[];
  readonly monitoring: BillingMonitoring;

  constructor(scope: Construct, id: string, props: BillingServiceStackProps) {
    super(scope, id, props);
    // Strong (Export/ImportValue): the data stack cannot change under a running service. Dropping a reference later
    // takes two deploys (keep the export one more deploy with stateful.exportValue).
    CrossStackReferences.of(this).consume(ReferenceStrength.STRONG);
    const { resources, config } = props;
    const specs = props.functions ?? BILLING_FUNCTIONS;
    this.api = this.#httpApi("Api", "Merchant API and gateway webhooks", config.api, config);
    this.pagesApi = this.#httpApi(
      "PagesApi",
      "Hosted checkout and customer portal pages",
      config.pages,
      config,
    );
    const context: BindContext = {
      resources,
      config,
      webhookBaseUrl: config.publicWebhookBaseUrl ?? `${this.api.apiEndpoint}/webhooks`,
      pagesBaseUrl: config.publicPagesBaseUrl ?? this.pagesApi.apiEndpoint,
      documentFonts: () => this.#documentFonts(),
    };
    const queues: { readonly [name in QueueName]: WorkQueue } = {
      charge: resources.chargeQueue,
      intake: resources.intakeQueue,
      webhook: resources.webhookQueue,
    };

    const built = specs.map((spec) => ({ spec, fn: this.#function(spec, context, queues) }));
    // The bus rules' targets give up after a day of retries; what they could not take waits here. Kept in this stack:
    // a rule's dead-letter queue must allow the rule, which a queue in the data stack could not name without a cycle.
    const ruleDeadLetters = new Queue(this, "EventRuleDeadLetters", {
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      retentionPeriod: Duration.days(14),
    });
    acknowledge(
      ruleDeadLetters,
      "AwsSolutions-SQS3",
      "This queue is itself a dead-letter queue (of the event bus rules' targets), which cdk-nag cannot see from an SQS redrive policy.",
    );
    this.functions = built.map(({ fn }) => fn);

    const authorizers = built.filter(({ spec }) => spec.trigger.kind === "authorizer");
    if (authorizers.length > 1) throw new Error("the function table names more than one authorizer");
    const merchantAuthorizer =
      authorizers[0] &&
      new HttpLambdaAuthorizer("MerchantAuthorizer", authorizers[0].fn, {
        responseTypes: [HttpLambdaResponseType.SIMPLE],
        identitySource: ["$request.header.Authorization"],
        resultsCacheTtl: Duration.minutes(5),
      });
    for (const { spec, fn } of built) {
      const trigger = spec.trigger;
      if (trigger.kind === "schedule") this.#schedule(trigger.schedule, fn, config, resources);
      if (trigger.kind === "unmatched") this.#unmatchedRoute(fn);
      if (trigger.kind === "eventRule")
        this.#eventRule(spec.name, trigger.eventTypes, fn, resources.eventBus, ruleDeadLetters);
      if (trigger.kind === "http")
        this.#routes(
          trigger.api === "pages" ? this.pagesApi : this.api,
          trigger.routes,
          fn,
          merchantAuthorizer,
        );
    }

    this.monitoring = new BillingMonitoring(this, "Monitoring", {
      functions: this.functions,
      queues: { ChargeWork: resources.chargeQueue, IntakeWork: resources.intakeQueue },
      webhookQueue: resources.webhookQueue,
      scheduleDeadLetters: resources.scheduleDeadLetters,
      eventDeadLetters: resources.eventDeadLetters,
      ruleDeadLetters,
      pagesApi: this.pagesApi,
      config,
    });
    this.#refusePlaceholderDeploys(config);
    this.#outputs(config, context, built);
  }

  #fonts?: LayerVersion;

  /** Noto Sans KR's regular and bold weights (OFL), out of npm's copy of @embedpdf/fonts-kr: 9 MB in /opt. */
  #documentFonts(): LayerVersion {
    this.#fonts ??= new LayerVersion(this, "DocumentFonts", {
      description: "Noto Sans KR (regular, bold): the typeface of invoices and credit notes",
      code: Code.fromAsset(documentFontDir(), {
        exclude: ["*", ...Object.values(DOCUMENT_FONT_FILES).map((file) => `!${file}`)],
      }),
      compatibleArchitectures: [Architecture.ARM_64],
    });
    return this.#fonts;
  }

  /** What `cdk deploy --outputs-file` writes for the ops CLI; no exports, so nothing pins them. */
  #outputs(
    config: BillingConfig,
    context: BindContext,
    built: readonly { spec: AnyFunctionSpec; fn: BillingFunction }[],
  ) {
    const outputs: { readonly [id in keyof typeof SERVICE_OUTPUTS]?: string } = {
      ApiUrl: this.api.apiEndpoint,
      PagesUrl: context.pagesBaseUrl,
      WebhookBaseUrl: context.webhookBaseUrl,
      PaymentBaseUrl: config.gatewayUrls.paymentBaseUrl,
      WebhookAdminBaseUrl: config.gatewayUrls.webhookAdminBaseUrl,
      PartnerBaseUrl: config.gatewayUrls.partnerBaseUrl,
      ...Object.fromEntries(
        built.flatMap(({ spec, fn }) =>
          isInvokedFunction(spec.name) ? [[INVOKED_FUNCTIONS[spec.name], fn.functionName]] : [],
        ),
      ),
    };
    for (const [id, value] of Object.entries(outputs)) new CfnOutput(this, id, { value });
  }

  #function(
    spec: AnyFunctionSpec,
    context: BindContext,
    queues: { readonly [name in QueueName]: WorkQueue },
  ) {
    const trigger = spec.trigger;
    const consumed = trigger.kind === "queue" ? queues[trigger.queue] : undefined;
    const scheduled = trigger.kind === "schedule" ? SCHEDULES[trigger.schedule] : undefined;
    const fn = new BillingFunction(this, constructId(spec.name), {
      handler: spec.name,
      entry: writeLambdaEntry(spec),
      environment: spec.services.environment,
      timeout: consumed
        ? consumerTimeout(consumed)
        : Duration.seconds(spec.timeoutSeconds ?? DEFAULT_TIMEOUT_SECONDS),
      logRetention: context.config.logRetention,
      reservedConcurrency: consumed ? undefined : spec.concurrency,
      asyncDeadLetters: scheduled && {
        queue: context.resources.scheduleDeadLetters,
        retryAttempts: ASYNC_RETRIES,
        maxEventAge: scheduled.maxEventAge,
      },
    });
    for (const bindTo of bindsOf(spec)) bindTo(fn, context);
    if (consumed && trigger.kind === "queue") {
      if (spec.concurrency === undefined)
        throw new Error(`${spec.name}: a queue consumer needs a concurrency`);
      fn.consumeQueue(consumed.queue, { batchSize: trigger.batchSize, maxConcurrency: spec.concurrency });
    }
    if (trigger.kind === "tableStream") {
      fn.consumeTableStream(context.resources.table, context.resources.eventDeadLetters, trigger.batchSize);
    }
    return fn;
  }

  #schedule(
    name: ScheduleName,
    fn: BillingFunction,
    config: BillingConfig,
    resources: BillingStatefulResources,
  ) {
    const { description, maxEventAge } = SCHEDULES[name];
    const id = `${constructId(name)}Schedule`;
    const role = new Role(this, `${id}Role`, {
      assumedBy: new ServicePrincipal("scheduler.amazonaws.com"),
      description: `EventBridge Scheduler: invokes ${fn.handlerName}`,
    });
    const cfnFunction = fn.node.defaultChild;
    if (cfnFunction instanceof CfnElement) {
      acknowledge(
        role,
        "AwsSolutions-IAM5",
        "lambda:InvokeFunction on the function's versions and aliases (ARN:*), as CDK's grantInvoke writes it; one function only.",
        `Resource::<${this.getLogicalId(cfnFunction)}.Arn>:*`,
      );
    }
    new Schedule(this, id, {
      description,
      schedule: ScheduleExpression.expression(config.schedules[name]),
      target: new LambdaInvoke(fn, {
        role,
        // What scheduledEventSchema reads: the log line names the schedule and its planned time.
        input: ScheduleTargetInput.fromObject({
          "detail-type": `Scheduled: ${name}`,
          id: ContextAttribute.executionId,
          time: ContextAttribute.scheduledTime,
        }),
        retryAttempts: SCHEDULE_RETRIES,
        maxEventAge,
        deadLetterQueue: resources.scheduleDeadLetters,
      }),
    });
  }

  /** A rule on the bus: these billing events to the function, retried for a day, then kept in the dead letters. */
  #eventRule(
    name: string,
    eventTypes: readonly string[],
    fn: BillingFunction,
    eventBus: IEventBus,
    deadLetters: IQueue,
  ) {
    new Rule(this, `${constructId(name)}Rule`, {
      eventBus,
      description: `Billing events to ${name}`,
      eventPattern: { source: [EVENT_SOURCE], detailType: [...eventTypes] },
      targets: [
        new LambdaFunction(fn, {
          deadLetterQueue: deadLetters,
          retryAttempts: RULE_RETRIES,
          maxEventAge: Duration.hours(24),
        }),
      ],
    });
  }

  #httpApi(id: string, description: string, throttle: BillingConfig["api"], config: BillingConfig): HttpApi {
    const api = new HttpApi(this, id, { description, createDefaultStage: false });
    const accessLogs = new LogGroup(this, `${id}AccessLogs`, { retention: config.logRetention });
    api.addStage("DefaultStage", {
      stageName: "$default",
      autoDeploy: true,
      throttle: { rateLimit: throttle.rateLimit, burstLimit: throttle.burstLimit },
      accessLogSettings: {
        destination: new LogGroupLogDestination(accessLogs),
        // Request metadata only: never the body or the Authorization header.
        format: AccessLogFormat.jsonWithStandardFields(),
      },
    });
    return api;
  }

  /** The merchant API's $default route: what no other route takes is answered in the merchant API's envelope. */
  #unmatchedRoute(fn: BillingFunction) {
    const route = new ApiRoute(this, "UnmatchedRoute", {
      httpApi: this.api,
      routeKey: HttpRouteKey.DEFAULT,
      integration: new HttpLambdaIntegration(`${fn.node.id}Integration`, fn, API_SCOPED),
    });
    acknowledge(
      route,
      "AwsSolutions-APIG4",
      "API Gateway's $default route: it answers 404 or 405 in the merchant API's error envelope and reads nothing.",
    );
  }

  #routes(
    api: HttpApi,
    routes: readonly HttpRoute[],
    fn: BillingFunction,
    merchantAuthorizer: IHttpRouteAuthorizer | undefined,
  ) {
    const integration = new HttpLambdaIntegration(`${fn.node.id}Integration`, fn, API_SCOPED);
    for (const route of routes) {
      if (route.auth === "merchant" && merchantAuthorizer === undefined) {
        throw new Error(
          `${route.method} ${route.path} needs the merchant authorizer, which no function provides`,
        );
      }
      const [added] = api.addRoutes({
        path: route.path,
        methods: [HttpMethod[route.method]],
        integration,
        authorizer: route.auth === "merchant" ? merchantAuthorizer : new HttpNoneAuthorizer(),
      });
      if (route.auth === "none" && added) {
        acknowledge(
          added,
          "AwsSolutions-APIG4",
          api === this.pagesApi
            ? "A customer's page, opened by a link we signed: the handler checks the link (HMAC, expiry) and an action's form token."
            : "Called by the gateway (or public: the OpenAPI document), which sends no bearer key: the handler authenticates the call itself (verify, signature, confirm by retrieve).",
        );
      }
    }
  }

  /**
   * Gateway URLs left unset synthesize with `.invalid` placeholders (offline synth, tests), but must not deploy: a
   * warning at synth, and a CloudFormation rule that fails the deployment before any resource changes.
   */
  #refusePlaceholderDeploys(config: BillingConfig) {
    if (config.unsetGatewayUrlKeys.length === 0) return;
    const keys = config.unsetGatewayUrlKeys.join(", ");
    Annotations.of(this).addWarningV2(
      "billing:placeholder-gateway-urls",
      `${keys} not set: placeholder .invalid URLs are used and the deployment will be refused. Set them in cdk.json "context" or with -c.`,
    );
    const configured = new CfnParameter(this, "GatewayUrlsConfigured", {
      type: "String",
      default: "no",
      description: `Placeholder gateway URLs (${keys} unset in the CDK context)`,
    });
    new CfnRule(this, "GatewayUrlsRequired", {
      assertions: [
        {
          assert: Fn.conditionEquals(configured.valueAsString, "yes"),
          assertDescription: `Set ${keys} in the CDK context (cdk.json or -c key=value) and deploy again.`,
        },
      ],
    });
  }
}
