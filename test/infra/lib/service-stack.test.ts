import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { App } from "aws-cdk-lib";
import { Match, Template } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { MERCHANT_API_ROUTES } from "../../../functions/api/merchant-api-routes";
import type { ComponentName } from "../../../functions/composition/service-set";
import { webhookEventTypes } from "../../../functions/core/ports/webhook-ports";
import { type AnyFunctionSpec, BILLING_FUNCTIONS } from "../../../functions/function-table";
import {
  CHECKOUT_PAGE_ROUTES,
  DOCUMENT_PAGE_ROUTES,
  PORTAL_PAGE_ROUTES,
} from "../../../functions/pages/shared/page-routes";
import { TABLE_ACTIONS } from "../../../lib/billing-function";
import { readBillingConfig } from "../../../lib/config";
import { BillingServiceStack } from "../../../lib/service-stack";
import type { SERVICE_OUTPUTS } from "../../../lib/stack-outputs";
import { BillingStatefulStack } from "../../../lib/stateful-stack";
import { CONFIGURED_CONTEXT, resourcesOf, synthBillingApp } from "../billing-app";

const statementSchema = z.object({
  Effect: z.string(),
  Action: z.union([z.string(), z.array(z.string())]),
  Resource: z.unknown(),
});
type Statement = z.output<typeof statementSchema>;
const policySchema = z.object({
  Roles: z.array(z.unknown()),
  PolicyDocument: z.object({ Statement: z.array(statementSchema) }),
});
const functionSchema = z.looseObject({
  Role: z.unknown(),
  Description: z.string(),
  Environment: z.object({ Variables: z.record(z.string(), z.unknown()) }),
});

type LambdaFunction = {
  logicalId: string;
  handler: string;
  properties: Record<string, unknown>;
  variables: Record<string, unknown>;
  statements: Statement[];
};

let synth: ReturnType<typeof synthBillingApp>;
let functions: LambdaFunction[];
/** Logical ids of the stateful stack's resources: what an imported value (Fn::ImportValue) may point at. */
let statefulIds: string[];

const handlerFiles = readdirSync(new URL("../../../functions/handlers/", import.meta.url))
  .filter((file) => file.endsWith(".ts"))
  .map((file) => file.replace(/\.ts$/, ""))
  .sort();

/** The logical id of the HTTP API whose construct id is `id` (Api, PagesApi). */
function apiIdOf(id: string): string {
  const ids = resourcesOf(synth.service, "AWS::ApiGatewayV2::Api")
    .map(([logicalId]) => logicalId)
    .filter((logicalId) => new RegExp(`^${id}[0-9A-F]{8}$`).test(logicalId));
  expect(ids, id).toHaveLength(1);
  return ids[0] ?? "";
}

/** An API's routes: route key → authorization type. */
const routesOf = (apiId: string) =>
  new Map(
    resourcesOf(synth.service, "AWS::ApiGatewayV2::Route")
      .filter(([, route]) => JSON.stringify(route.Properties?.ApiId) === JSON.stringify({ Ref: apiId }))
      .map(([, route]) => [String(route.Properties?.RouteKey), route.Properties?.AuthorizationType]),
  );

/** A resource of the monitoring stack with its parameters filled in as the service stack passes them (its own ids). */
function inServiceStack(resource: unknown): string {
  const stacks = resourcesOf(synth.service, "AWS::CloudFormation::Stack");
  expect(stacks).toHaveLength(1);
  const parameters = z.record(z.string(), z.unknown()).parse(stacks[0]?.[1].Properties?.Parameters);
  return JSON.stringify(resource).replace(/\{"Ref":"([A-Za-z0-9]+)"\}/g, (ref, name: string) =>
    name in parameters ? JSON.stringify(parameters[name]) : ref,
  );
}

const referencedIds = (value: unknown) => statefulIds.filter((id) => JSON.stringify(value).includes(id));
const actionsOf = (statement: Statement) => [statement.Action].flat();
/** What the table stream's event source mapping grants its consumer (on the stream, not the table). */
const STREAM_ACTIONS = [
  "dynamodb:DescribeStream",
  "dynamodb:GetRecords",
  "dynamodb:GetShardIterator",
  "dynamodb:ListStreams",
];

beforeAll(() => {
  synth = synthBillingApp();
  statefulIds = Object.keys(synth.stateful.toJSON().Resources);
  const policies = resourcesOf(synth.service, "AWS::IAM::Policy").map(([, policy]) =>
    policySchema.parse(policy.Properties),
  );
  functions = resourcesOf(synth.service, "AWS::Lambda::Function").map(([logicalId, fn]) => {
    const properties = functionSchema.parse(fn.Properties);
    const role = JSON.stringify(properties.Role).match(/"Fn::GetAtt":\["([^"]+)"/)?.[1] ?? "";
    const statements = policies
      .filter((policy) => JSON.stringify(policy.Roles) === JSON.stringify([{ Ref: role }]))
      .flatMap((policy) => policy.PolicyDocument.Statement);
    return {
      logicalId,
      handler: properties.Description.replace(/^billing: /, ""),
      properties,
      variables: properties.Environment.Variables,
      statements,
    };
  });
});

describe("functions", () => {
  it("one function per handler file, and a table line for each", () => {
    expect(BILLING_FUNCTIONS.map((spec) => spec.name).sort()).toEqual(handlerFiles);
    expect(functions.map((fn) => fn.handler).sort()).toEqual(handlerFiles);
  });

  it("run nodejs22.x on arm64 with active tracing and their own log group", () => {
    for (const fn of functions) {
      expect(fn.properties, fn.handler).toMatchObject({
        Runtime: "nodejs22.x",
        Architectures: ["arm64"],
        TracingConfig: { Mode: "Active" },
        LoggingConfig: { LogGroup: { Ref: expect.stringMatching(/Logs/) } },
        Handler: "index.handler",
      });
    }
    for (const [, group] of resourcesOf(synth.service, "AWS::Logs::LogGroup")) {
      expect(group.Properties?.RetentionInDays).toBe(90);
    }
  });

  it("every gateway caller has a concurrency bound (reserved, or the event source's maximum)", () => {
    const mappings = resourcesOf(synth.service, "AWS::Lambda::EventSourceMapping");
    for (const fn of functions.filter((f) => "GATEWAY_SECRET_ARN" in f.variables)) {
      const mapping = mappings.find(([, m]) =>
        JSON.stringify(m.Properties?.FunctionName).includes(fn.logicalId),
      );
      const bounded =
        typeof fn.properties.ReservedConcurrentExecutions === "number" ||
        typeof (mapping?.[1].Properties?.ScalingConfig as { MaximumConcurrency?: number })
          ?.MaximumConcurrency === "number";
      expect(bounded, fn.handler).toBe(true);
    }
  });

  it("environment variables carry names, ARNs, URLs and settings only: no secret value, no card field", () => {
    const allowed =
      /^([A-Z_]+_(ARN|URL|NAME)|CHARGE_POLICY|MAIL_SETTINGS|PORTAL_ACTIONS|WEBHOOK_HEADER_PREFIX|GATEWAY_(REBILL_ENDPOINT|DECLINE_CODES)|DOCUMENT_FONT_DIR)$/;
    const forbidden = /card|cvc|pan\b|expiry|api_?key|aes|password|token(?!_SECRET_ARN)|secret(?!S?_ARN)/i;
    for (const fn of functions) {
      for (const [name, value] of Object.entries(fn.variables)) {
        expect(name, fn.handler).toMatch(allowed);
        expect(forbidden.test(name) && !name.endsWith("_ARN"), `${fn.handler} ${name}`).toBe(false);
        // A secret is named by its ARN, which CloudFormation imports: never a literal in the template.
        if (name.endsWith("_ARN")) expect(JSON.stringify(value)).toMatch(/^\{"Fn::ImportValue":/);
        if (typeof value === "string") {
          expect(value, `${fn.handler} ${name}`).not.toMatch(/apiKey|aesKey|cvc|card_number|\d{13,19}/i);
        }
      }
    }
  });
});

describe("gateway settings", () => {
  it("the REBILL form and the decline codes, when chosen, reach their callers and nothing else", () => {
    const configured = synthBillingApp({
      ...CONFIGURED_CONTEXT,
      "billing:gatewayRebillEndpoint": "payment",
      "billing:gatewayDeclineCodes": '{"tokenRevokedCodes":[]}',
    });
    const variables = resourcesOf(configured.service, "AWS::Lambda::Function").map(([, fn]) => {
      const properties = functionSchema.parse(fn.Properties);
      const vars: Record<string, unknown> = {
        ...properties.Environment.Variables,
        name: properties.Description.replace(/^billing: /, ""),
      };
      return vars;
    });
    const callers = variables.filter((vars) => "GATEWAY_SECRET_ARN" in vars);
    expect(callers.length).toBeGreaterThan(5);
    for (const vars of callers) expect(vars.GATEWAY_REBILL_ENDPOINT).toBe("payment");
    for (const vars of variables.filter((each) => !("GATEWAY_SECRET_ARN" in each))) {
      expect(vars).not.toHaveProperty("GATEWAY_REBILL_ENDPOINT");
    }
    // Only the payment API's adapter judges refusals: the partner and reconciliation callers get no codes.
    const judges: string[] = BILLING_FUNCTIONS.filter((spec) =>
      spec.services.components.includes("gateway"),
    ).map((spec) => spec.name);
    expect(judges.length).toBeGreaterThan(3);
    expect(variables.filter((vars) => "GATEWAY_DECLINE_CODES" in vars).map((vars) => vars.name)).toEqual(
      expect.arrayContaining(judges),
    );
    for (const vars of variables) {
      if (judges.includes(String(vars.name)))
        expect(vars.GATEWAY_DECLINE_CODES).toBe('{"tokenRevokedCodes":[]}');
      else expect(vars, String(vars.name)).not.toHaveProperty("GATEWAY_DECLINE_CODES");
    }
    // Unset, the handlers' defaults hold: no variable at all.
    for (const fn of functions) {
      expect(fn.variables).not.toHaveProperty("GATEWAY_REBILL_ENDPOINT");
      expect(fn.variables).not.toHaveProperty("GATEWAY_DECLINE_CODES");
    }
  });
});

describe("least privilege", () => {
  it("no wildcard resource or action on DynamoDB, SQS, Secrets Manager or EventBridge", () => {
    for (const fn of functions) {
      for (const statement of fn.statements) {
        const actions = actionsOf(statement);
        if (statement.Resource === "*" || JSON.stringify(statement.Resource).includes('"*"')) {
          expect(actions.sort(), fn.handler).toEqual(["xray:PutTelemetryRecords", "xray:PutTraceSegments"]);
        }
        for (const action of actions) expect(action, fn.handler).not.toMatch(/\*/);
      }
    }
  });

  it("each function's grants name only the table, queues, bus and secrets its variables point at", () => {
    const invokeConfigs = JSON.stringify(synth.service.findResources("AWS::Lambda::EventInvokeConfig"));
    const mappings = JSON.stringify(synth.service.findResources("AWS::Lambda::EventSourceMapping"));
    const deadLetters = statefulIds.filter((id) => id.startsWith("ScheduleDeadLetters"));
    const streamDeadLetters = statefulIds.filter((id) => id.startsWith("EventDeliveryDeadLetters"));
    for (const fn of functions) {
      // A scheduled function may also send its failed async invocations to the schedule DLQ, and the table stream's
      // consumer the positions of the batches it failed to the event-delivery DLQ.
      const scheduled = invokeConfigs.includes(fn.logicalId);
      const streamConsumer = mappings.includes(fn.logicalId) && fn.handler === "publish-events";
      const allowed = new Set([
        ...referencedIds(fn.variables),
        ...(scheduled ? deadLetters : []),
        ...(streamConsumer ? streamDeadLetters : []),
      ]);
      for (const statement of fn.statements) {
        for (const id of referencedIds(statement.Resource)) {
          expect(allowed.has(id), `${fn.handler} may touch ${id}`).toBe(true);
        }
      }
    }
  });

  it("grants the repository's DynamoDB actions on the table and its named indexes only", () => {
    const definitionIndexes = ["due", "open", "by_subscription", "ledger", "outbox"];
    const itemAction = (action: string) => action.startsWith("dynamodb:") && !STREAM_ACTIONS.includes(action);
    for (const fn of functions) {
      const dynamo = fn.statements.filter((s) => actionsOf(s).some(itemAction));
      expect(dynamo.length, fn.handler).toBe("TABLE_NAME" in fn.variables ? 1 : 0);
      for (const statement of dynamo) {
        const resources = JSON.stringify(statement.Resource);
        for (const index of definitionIndexes) expect(resources).toContain(`/index/${index}`);
        expect(resources).not.toContain("/index/*");
      }
    }
    const readOnly = functions.filter((fn) =>
      [
        "get-subscription",
        "list-charges",
        "list-webhook-endpoints",
        "list-webhook-deliveries",
        "queue-webhooks",
      ].includes(fn.handler),
    );
    // reconcile-ledger writes too: a chargeback deduction no webhook brought is recorded on its charge.
    expect(readOnly).toHaveLength(5);
    for (const fn of readOnly) {
      const actions = fn.statements.flatMap(actionsOf).filter((a) => a.startsWith("dynamodb:"));
      expect(actions.sort(), fn.handler).toEqual([
        "dynamodb:BatchGetItem",
        "dynamodb:GetItem",
        "dynamodb:Query",
      ]);
    }
  });

  it("grants every DynamoDB action the adapters' commands issue, and reads only what read access reads", () => {
    const root = fileURLToPath(new URL("../../../functions/adapters/", import.meta.url));
    const sources = readdirSync(root, { recursive: true, encoding: "utf8" })
      .filter((file) => file.endsWith(".ts"))
      .map((file) => readFileSync(join(root, file), "utf8"))
      .filter((source) => /@aws-sdk\/(lib|client)-dynamodb/.test(source));
    const commands = new Set(
      sources.flatMap((source) => [...source.matchAll(/new (\w+)Command\(/g)].map((m) => m[1])),
    );
    const action = (command: string) =>
      `dynamodb:${["Query", "Scan"].includes(command) ? command : `${command}Item`}`;
    const issued = [...commands].map((command) => action(String(command)));
    expect(issued).toContain("dynamodb:BatchWriteItem");
    expect(TABLE_ACTIONS.readWrite).toEqual(expect.arrayContaining(issued));
    for (const read of TABLE_ACTIONS.read) expect(read).toMatch(/:(Get|BatchGet)Item$|:Query$/);
  });

  it("only the table stream's consumer reads the stream, and only the billing table's", () => {
    const readers = functions.filter((fn) =>
      fn.statements.some((s) => actionsOf(s).includes("dynamodb:GetRecords")),
    );
    expect(readers.map((fn) => fn.handler)).toEqual(["publish-events"]);
    const stream = readers[0]?.statements.filter((s) => actionsOf(s).includes("dynamodb:GetRecords"));
    expect(JSON.stringify(stream)).toContain("BillingTable");
  });

  it("only the partner-token writers may put a secret value, and only the partner token's", () => {
    const writers = functions.filter((fn) =>
      fn.statements.some((s) => actionsOf(s).includes("secretsmanager:PutSecretValue")),
    );
    expect(writers.map((fn) => fn.handler).sort()).toEqual([
      "refresh-partner-token",
      "register-partner-webhook",
    ]);
    for (const fn of writers) {
      const put = fn.statements.find((s) => actionsOf(s).includes("secretsmanager:PutSecretValue"));
      expect(referencedIds(put?.Resource)).toEqual([expect.stringMatching(/^PartnerToken/)]);
      expect(actionsOf(put ?? { Action: [], Resource: "", Effect: "" })).toEqual([
        "secretsmanager:PutSecretValue",
      ]);
    }
  });

  it("the charge worker consumes the charge queue but cannot send; the charge run sends but cannot consume", () => {
    const sqsActions = (handler: string) =>
      functions
        .find((fn) => fn.handler === handler)
        ?.statements.filter((s) => referencedIds(s.Resource).some((id) => id.startsWith("ChargeWorkQueue")))
        .flatMap(actionsOf)
        .sort();
    expect(sqsActions("process-charges")).toContain("sqs:ChangeMessageVisibility");
    expect(sqsActions("process-charges")).not.toContain("sqs:SendMessage");
    expect(sqsActions("run-charges")).toEqual([
      "sqs:GetQueueAttributes",
      "sqs:GetQueueUrl",
      "sqs:SendMessage",
    ]);
    expect(sqsActions("create-subscription")).toEqual([]);
    // A cancellation hands the canceled subscription's token to the charge queue for retirement.
    expect(sqsActions("cancel-subscription")).toContain("sqs:SendMessage");
  });
});

describe("triggers", () => {
  it("queue consumers report partial batch failures with a bounded batching window and concurrency", () => {
    const mappings = resourcesOf(synth.service, "AWS::Lambda::EventSourceMapping").filter(
      ([, mapping]) => mapping.Properties?.StartingPosition === undefined,
    );
    expect(mappings).toHaveLength(3);
    for (const [, mapping] of mappings) {
      expect(mapping.Properties).toMatchObject({
        FunctionResponseTypes: ["ReportBatchItemFailures"],
        BatchSize: 10,
        MaximumBatchingWindowInSeconds: 5,
        ScalingConfig: { MaximumConcurrency: expect.any(Number) },
      });
    }
  });

  it("the table stream drives publish-events: in order, partial failures retried, then dead-lettered", () => {
    const streams = resourcesOf(synth.service, "AWS::Lambda::EventSourceMapping").filter(
      ([, mapping]) => mapping.Properties?.StartingPosition !== undefined,
    );
    expect(streams).toHaveLength(1);
    const [[, mapping] = ["", {}]] = streams;
    expect(JSON.stringify(mapping.Properties?.FunctionName)).toContain("PublishEvents");
    expect(JSON.stringify(mapping.Properties?.EventSourceArn)).toContain("BillingTable");
    expect(mapping.Properties).toMatchObject({
      StartingPosition: "TRIM_HORIZON",
      FunctionResponseTypes: ["ReportBatchItemFailures"],
      BisectBatchOnFunctionError: true,
      MaximumRetryAttempts: 10,
      DestinationConfig: {
        OnFailure: { Destination: { "Fn::ImportValue": expect.stringMatching(/EventDeliveryDeadLetters/) } },
      },
      FilterCriteria: { Filters: [{ Pattern: expect.stringContaining("outbox") }] },
    });
  });

  it("alarms when event delivery falls behind or gives up", () => {
    const alarms = resourcesOf(synth.monitoring, "AWS::CloudWatch::Alarm").map(
      ([, alarm]) => alarm.Properties,
    );
    expect(alarms).toContainEqual(
      expect.objectContaining({ MetricName: "IteratorAge", Threshold: 300_000, Statistic: "Maximum" }),
    );
    expect(alarms).toContainEqual(
      expect.objectContaining({ MetricName: "OutboxDeliveriesFailed", Threshold: 0 }),
    );
  });

  it("each schedule retries, then dead-letters; so do the scheduled functions' async invocations", () => {
    const schedules = resourcesOf(synth.service, "AWS::Scheduler::Schedule");
    expect(schedules.map(([, s]) => s.Properties?.ScheduleExpression).sort()).toEqual([
      "cron(0 9 * * ? *)",
      "cron(30 3 * * ? *)",
      "cron(5 0 * * ? *)",
      "rate(1 day)",
      "rate(1 hour)",
      "rate(5 minutes)",
      "rate(5 minutes)",
      "rate(6 hours)",
    ]);
    for (const [, schedule] of schedules) {
      expect(schedule.Properties).toMatchObject({
        FlexibleTimeWindow: { Mode: "OFF" },
        Target: {
          RetryPolicy: { MaximumRetryAttempts: 3, MaximumEventAgeInSeconds: expect.any(Number) },
          DeadLetterConfig: { Arn: { "Fn::ImportValue": expect.stringMatching(/ScheduleDeadLetters/) } },
        },
      });
    }
    const invokeConfigs = resourcesOf(synth.service, "AWS::Lambda::EventInvokeConfig");
    expect(invokeConfigs).toHaveLength(schedules.length);
    for (const [, config] of invokeConfigs) {
      expect(config.Properties).toMatchObject({
        MaximumRetryAttempts: 2,
        DestinationConfig: {
          OnFailure: { Destination: { "Fn::ImportValue": expect.stringMatching(/ScheduleDeadLetters/) } },
        },
      });
    }
  });

  it("merchant routes go through the Lambda authorizer (simple responses); webhooks, the OpenAPI document and $default do not", () => {
    synth.service.hasResourceProperties("AWS::ApiGatewayV2::Authorizer", {
      AuthorizerType: "REQUEST",
      EnableSimpleResponses: true,
      AuthorizerPayloadFormatVersion: "2.0",
      IdentitySource: ["$request.header.Authorization"],
    });
    const routes = routesOf(apiIdOf("Api"));
    const deployed = MERCHANT_API_ROUTES.filter((route) => !route.localOnly);
    for (const route of deployed) {
      const path = route.path;
      expect(routes.get(`${route.method} ${path}`), path).toBe(route.auth === "bearer" ? "CUSTOM" : "NONE");
    }
    expect(routes.get("GET /openapi.json")).toBe("NONE");
    // What no route takes: answered in the merchant API's envelope by answer-unmatched-route.
    expect(routes.get("$default")).toBe("NONE");
    expect(routes.size).toBe(deployed.length + 2);
  });

  it("our pages are on an API of their own, without an authorizer: each page checks its signed link", () => {
    const routes = routesOf(apiIdOf("PagesApi"));
    const pageRoutes = [
      ...Object.values(CHECKOUT_PAGE_ROUTES),
      ...Object.values(PORTAL_PAGE_ROUTES),
      ...Object.values(DOCUMENT_PAGE_ROUTES),
    ].map(({ method, path }) => `${method} ${path}`);
    expect([...routes.keys()].sort()).toEqual(pageRoutes.sort());
    for (const key of pageRoutes) expect(routes.get(key), key).toBe("NONE");
  });

  it("each API's stage is throttled on its own and access-logged", () => {
    for (const [id, rateLimit, burstLimit] of [
      ["Api", 50, 100],
      ["PagesApi", 20, 40],
    ] as const) {
      synth.service.hasResourceProperties("AWS::ApiGatewayV2::Stage", {
        ApiId: { Ref: apiIdOf(id) },
        StageName: "$default",
        AutoDeploy: true,
        DefaultRouteSettings: { ThrottlingRateLimit: rateLimit, ThrottlingBurstLimit: burstLimit },
        AccessLogSettings: { DestinationArn: Match.anyValue(), Format: Match.stringLikeRegexp("requestId") },
      });
    }
  });
});

describe("customer mails", () => {
  const mailers = () => functions.filter((fn) => "MAIL_SETTINGS" in fn.variables);

  it("a rule on the bus hands the events that call for a mail to notify-customer, retried for a day, then dead-lettered", () => {
    const notify = functions.find((fn) => fn.handler === "notify-customer");
    const rules = resourcesOf(synth.service, "AWS::Events::Rule").filter(([, candidate]) =>
      JSON.stringify(candidate.Properties?.Targets).includes(String(notify?.logicalId)),
    );
    expect(rules).toHaveLength(1);
    const [, rule] = rules[0] ?? [];
    expect(rule?.Properties).toMatchObject({
      EventBusName: { "Fn::ImportValue": expect.stringMatching(/Events/) },
      EventPattern: {
        source: ["billing.orchestrator"],
        "detail-type": ["charge.failed", "charge.succeeded", "subscription.canceled"],
      },
      Targets: [
        {
          Arn: { "Fn::GetAtt": [notify?.logicalId, "Arn"] },
          RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86_400 },
          DeadLetterConfig: {
            Arn: { "Fn::GetAtt": [expect.stringMatching(/^EventRuleDeadLetters/), "Arn"] },
          },
        },
      ],
    });
  });

  it("only the mail functions get MAIL_SETTINGS, and may send as the merchant's sender only", () => {
    expect(
      mailers()
        .map((fn) => fn.handler)
        .sort(),
    ).toEqual(["notify-customer", "send-reminders"]);
    const senders = functions.filter((fn) =>
      fn.statements.some((statement) => actionsOf(statement).some((action) => action.startsWith("ses:"))),
    );
    expect(senders.map((fn) => fn.handler).sort()).toEqual(["notify-customer", "send-reminders"]);
    for (const fn of senders) {
      expect(JSON.parse(String(fn.variables.MAIL_SETTINGS))).toEqual(CONFIGURED_CONTEXT["billing:mail"]);
      const ses = fn.statements.filter((statement) => actionsOf(statement).some((a) => a.startsWith("ses:")));
      expect(ses.map(actionsOf)).toEqual([["ses:SendEmail"]]);
      const resources = JSON.stringify(ses[0]?.Resource);
      for (const name of [
        "identity/billing@example.test",
        "identity/example.test",
        "configuration-set/billing-mail",
      ])
        expect(resources, fn.handler).toContain(name);
    }
  });

  it("without billing:mail no function gets MAIL_SETTINGS or may send mail", () => {
    const { "billing:mail": _mail, ...withoutMail } = CONFIGURED_CONTEXT;
    const unconfigured = JSON.stringify(synthBillingApp(withoutMail).service.toJSON());
    expect(unconfigured).not.toContain("MAIL_SETTINGS");
    expect(unconfigured).not.toContain("ses:SendEmail");
  });
});

describe("webhooks to the SaaS", () => {
  const fnOf = (handler: string) => functions.find((fn) => fn.handler === handler);
  const webhookQueueActions = (handler: string) =>
    fnOf(handler)
      ?.statements.filter((s) =>
        referencedIds(s.Resource).some((id) => id.startsWith("WebhookDeliveryQueue")),
      )
      .flatMap(actionsOf)
      .sort();

  it("a rule on the bus hands every billing event type to queue-webhooks, retried for a day, then dead-lettered", () => {
    const fanOut = fnOf("queue-webhooks");
    const rules = resourcesOf(synth.service, "AWS::Events::Rule").filter(([, rule]) =>
      JSON.stringify(rule.Properties?.Targets).includes(String(fanOut?.logicalId)),
    );
    expect(rules).toHaveLength(1);
    expect(rules[0]?.[1].Properties).toMatchObject({
      EventBusName: { "Fn::ImportValue": expect.stringMatching(/Events/) },
      EventPattern: { source: ["billing.orchestrator"], "detail-type": [...webhookEventTypes()] },
      Targets: [
        {
          Arn: { "Fn::GetAtt": [fanOut?.logicalId, "Arn"] },
          RetryPolicy: { MaximumRetryAttempts: 185, MaximumEventAgeInSeconds: 86_400 },
          DeadLetterConfig: {
            Arn: { "Fn::GetAtt": [expect.stringMatching(/^EventRuleDeadLetters/), "Arn"] },
          },
        },
      ],
    });
    expect(fanOut?.properties.ReservedConcurrentExecutions).toBe(5);
  });

  it("send-webhooks consumes the delivery queue, at most 5 batches at once, within the queue's visibility", () => {
    const sender = fnOf("send-webhooks");
    const mappings = resourcesOf(synth.service, "AWS::Lambda::EventSourceMapping").filter(([, mapping]) =>
      JSON.stringify(mapping.Properties?.FunctionName).includes(String(sender?.logicalId)),
    );
    expect(mappings).toHaveLength(1);
    expect(mappings[0]?.[1].Properties).toMatchObject({
      EventSourceArn: { "Fn::ImportValue": expect.stringMatching(/WebhookDeliveryQueue/) },
      BatchSize: 10,
      ScalingConfig: { MaximumConcurrency: 5 },
      FunctionResponseTypes: ["ReportBatchItemFailures"],
    });
    // 3 minutes of visibility, a sixth of it to run: a batch's 10 s POSTs side by side fit.
    expect(sender?.properties.Timeout).toBe(30);
  });

  it("least privilege: the fan-out reads the table and sends, the sender writes deliveries and consumes, the API writes endpoints", () => {
    const tableActions = (handler: string) =>
      fnOf(handler)
        ?.statements.flatMap(actionsOf)
        .filter((action) => action.startsWith("dynamodb:"))
        .sort();
    expect(tableActions("queue-webhooks")).toEqual([
      "dynamodb:BatchGetItem",
      "dynamodb:GetItem",
      "dynamodb:Query",
    ]);
    expect(webhookQueueActions("queue-webhooks")).toEqual([
      "sqs:GetQueueAttributes",
      "sqs:GetQueueUrl",
      "sqs:SendMessage",
    ]);
    expect(webhookQueueActions("send-webhooks")).toContain("sqs:ChangeMessageVisibility");
    expect(webhookQueueActions("send-webhooks")).not.toContain("sqs:SendMessage");
    expect(tableActions("send-webhooks")).toContain("dynamodb:PutItem");
    expect(webhookQueueActions("replay-events")).toContain("sqs:SendMessage");
    for (const handler of ["create-webhook-endpoint", "delete-webhook-endpoint"]) {
      expect(tableActions(handler), handler).toContain("dynamodb:PutItem");
      expect(webhookQueueActions(handler), handler).toEqual([]);
    }
    const senders = functions.filter((fn) => "WEBHOOK_QUEUE_URL" in fn.variables).map((fn) => fn.handler);
    expect(senders.sort()).toEqual(["queue-webhooks", "replay-events", "send-webhooks"]);
  });

  it("no function is told to relax the URL rules: on AWS webhooks go to https and public addresses only", () => {
    for (const fn of functions) expect(fn.variables, fn.handler).not.toHaveProperty("WEBHOOK_URL_POLICY");
  });

  it("alarms on a delivery failed after 3 days and on the delivery queue's dead letters, not on its old messages", () => {
    const alarms = resourcesOf(synth.monitoring, "AWS::CloudWatch::Alarm");
    const [failed] = alarms.filter(([id]) => /^WebhookDeliveriesFailed/.test(id));
    expect(failed?.[1].Properties).toMatchObject({
      Namespace: "Billing",
      MetricName: "WebhookDeliveriesFailed",
      Dimensions: [{ Name: "service", Value: "billing" }],
      Statistic: "Sum",
      Threshold: 0,
      ComparisonOperator: "GreaterThanThreshold",
    });
    expect(String(failed?.[1].Properties?.AlarmDescription)).toContain("--endpoint");
    const [deadLetters] = alarms.filter(([id]) => /^WebhookDeliveryDeadLetters/.test(id));
    expect(JSON.stringify(deadLetters?.[1].Properties)).toMatch(/WebhookDeliveryDeadLetters/);
    // A delivery waits up to 6 hours between attempts by design: no backlog alarm on the queue's oldest message.
    const backlog = alarms.filter(
      ([, alarm]) =>
        JSON.stringify(alarm).includes("ApproximateAgeOfOldestMessage") &&
        JSON.stringify(alarm).includes("WebhookDeliveryQueue"),
    );
    expect(backlog).toEqual([]);
  });
});

describe("pages", () => {
  const pageFunctions = () => functions.filter((fn) => fn.handler.startsWith("serve-"));

  it("the page functions, create-checkout, create-portal-session, read-documents, list-charges and the customer mails read the page link key and the pages' URL, and may read that secret only", () => {
    const [linkSecret] = resourcesOf(synth.stateful, "AWS::SecretsManager::Secret")
      .map(([id]) => id)
      .filter((id) => id.startsWith("PageLinkKey"));
    expect(linkSecret).toBeDefined();
    const readers = functions.filter((fn) => "PAGE_LINK_SECRET_ARN" in fn.variables);
    expect(readers.map((fn) => fn.handler).sort()).toEqual([
      "create-checkout",
      "create-portal-session",
      "list-charges",
      "notify-customer",
      "read-documents",
      "send-reminders",
      "serve-checkout-page",
      "serve-document",
      "serve-portal-page",
    ]);
    for (const fn of readers) {
      expect(JSON.stringify(fn.variables.PAGE_LINK_SECRET_ARN), fn.handler).toContain(linkSecret);
      expect(fn.variables.PUBLIC_PAGES_BASE_URL, fn.handler).toEqual({
        "Fn::GetAtt": [apiIdOf("PagesApi"), "ApiEndpoint"],
      });
      expect(fn.variables.MERCHANT_NAME, fn.handler).toBe(CONFIGURED_CONTEXT["billing:merchantName"]);
    }
    expect(
      pageFunctions()
        .map((fn) => fn.handler)
        .sort(),
    ).toEqual(["serve-checkout-page", "serve-document", "serve-portal-page"]);
    // The portal offers what the merchant chose (billing:portalActions).
    const portal = functions.filter((fn) => "PORTAL_ACTIONS" in fn.variables);
    expect(portal.map((fn) => [fn.handler, fn.variables.PORTAL_ACTIONS])).toEqual([
      ["serve-portal-page", '["update_card","cancel"]'],
    ]);
  });

  it("serve-document alone reads and writes the documents' bucket, and has the fonts layer", () => {
    const [access] = resourcesOf(synth.stateful, "AWS::IAM::ManagedPolicy").map(([id]) => id);
    expect(access).toMatch(/^DocumentFilesAccess/);
    const roles = resourcesOf(synth.service, "AWS::IAM::Role").filter(([, role]) =>
      String(JSON.stringify(role.Properties?.ManagedPolicyArns)).includes(access ?? "-"),
    );
    expect(roles.map(([id]) => id)).toEqual([expect.stringMatching(/^ServeDocumentRole/)]);
    const serve = functions.find((fn) => fn.handler === "serve-document");
    expect(functions.filter((fn) => "DOCUMENT_BUCKET_NAME" in fn.variables)).toEqual([serve]);
    expect(serve?.statements.flatMap(actionsOf).filter((action) => action.startsWith("s3:"))).toEqual([]);
    expect(serve?.variables.DOCUMENT_FONT_DIR).toBe("/opt");
    expect(JSON.stringify(serve?.properties.Layers)).toMatch(/DocumentFonts/);
    expect(resourcesOf(synth.service, "AWS::Lambda::LayerVersion")).toHaveLength(1);
  });

  it("alarms when a page answers 5xx", () => {
    const [alarm] = resourcesOf(synth.monitoring, "AWS::CloudWatch::Alarm").filter(([id]) =>
      /^PageErrors[0-9A-F]{8}$/.test(id),
    );
    expect(JSON.parse(inServiceStack(alarm?.[1].Properties))).toMatchObject({
      Namespace: "AWS/ApiGateway",
      MetricName: "5xx",
      Dimensions: [{ Name: "ApiId", Value: { Ref: apiIdOf("PagesApi") } }],
      Threshold: 0,
    });
  });
});

describe("outputs", () => {
  it("name the API URL, the pages' and webhooks' URLs, the gateway base URLs and the functions the ops CLI invokes, without exports", () => {
    const outputs = synth.service.findOutputs("*");
    const apiId = apiIdOf("Api");
    const pagesApiId = apiIdOf("PagesApi");
    const functionRef = (handler: string) => ({
      Ref: functions.find((fn) => fn.handler === handler)?.logicalId,
    });
    const expected: Record<keyof typeof SERVICE_OUTPUTS, unknown> = {
      ApiUrl: { "Fn::GetAtt": [apiId, "ApiEndpoint"] },
      PagesUrl: { "Fn::GetAtt": [pagesApiId, "ApiEndpoint"] },
      WebhookBaseUrl: { "Fn::Join": ["", [{ "Fn::GetAtt": [apiId, "ApiEndpoint"] }, "/webhooks"]] },
      PaymentBaseUrl: CONFIGURED_CONTEXT["billing:paymentBaseUrl"],
      WebhookAdminBaseUrl: CONFIGURED_CONTEXT["billing:webhookAdminBaseUrl"],
      PartnerBaseUrl: CONFIGURED_CONTEXT["billing:partnerBaseUrl"],
      RunChargesFunctionName: functionRef("run-charges"),
      ReconcileLedgerFunctionName: functionRef("reconcile-ledger"),
      ReplayEventsFunctionName: functionRef("replay-events"),
    };
    for (const [id, value] of Object.entries(expected)) {
      expect(outputs[id], id).toEqual({ Value: value });
    }
  });
});

describe("alarms", () => {
  const alarms = () => resourcesOf(synth.monitoring, "AWS::CloudWatch::Alarm");
  const metricAlarm = (name: string) =>
    alarms().filter(([, alarm]) => JSON.stringify(alarm).includes(`"MetricName":"${name}"`));

  it("every alarm has a runbook line and notifies the topic", () => {
    for (const [id, alarm] of alarms()) {
      expect(String(alarm.Properties?.AlarmDescription).length, id).toBeGreaterThan(40);
      expect(JSON.stringify(alarm.Properties?.AlarmActions), id).toContain("AlarmTopic");
      expect(alarm.Properties?.AlarmName, id).toBeUndefined();
    }
    synth.monitoring.hasResourceProperties("AWS::SNS::Subscription", {
      Protocol: "email",
      Endpoint: "oncall@example.test",
    });
  });

  it("errors and throttles are watched on every function", () => {
    for (const fn of functions) {
      for (const metric of ["Errors", "Throttles"]) {
        const watching = metricAlarm(metric).filter(([, a]) =>
          inServiceStack(a).includes(`{"Ref":"${fn.logicalId}"}`),
        );
        expect(watching, `${fn.handler} ${metric}`).toHaveLength(1);
      }
    }
  });

  it("watches the handlers' metrics: unknown outcomes, reconciliation, partner token, webhook signatures", () => {
    for (const name of [
      "ChargeUnknown",
      "AttemptsDeferred",
      "RefundsDeferred",
      "ReconciliationMismatches",
      "GatewayWebhooksRejected",
    ]) {
      const [alarm] = metricAlarm(name);
      expect(alarm?.[1].Properties, name).toMatchObject({
        Namespace: "Billing",
        Dimensions: [{ Name: "service", Value: "billing" }],
      });
    }
    expect(metricAlarm("PartnerTokenHoursLeft")[0]?.[1].Properties).toMatchObject({
      Threshold: 2,
      ComparisonOperator: "LessThanThreshold",
      Statistic: "Minimum",
    });
    const declineRate = alarms().find(([id]) => id.includes("DeclineRate"))?.[1];
    expect(JSON.stringify(declineRate)).toMatch(
      /ChargeDeclined.*ChargeSucceeded|ChargeSucceeded.*ChargeDeclined/,
    );
  });
});

describe("synth-time checks", () => {
  const configured = readBillingConfig(() => undefined);

  function synthWith(functions: readonly AnyFunctionSpec[]) {
    const app = new App({
      builtinCloudFormationValidation: false,
      context: { "aws:cdk:bundling-stacks": [] },
    });
    const stateful = new BillingStatefulStack(app, "S");
    const service = new BillingServiceStack(app, "B", {
      resources: stateful.resources,
      config: configured,
      functions,
    });
    return () => Template.fromStack(service);
  }

  function specOf(handler: string): AnyFunctionSpec {
    const spec = BILLING_FUNCTIONS.find((s) => s.name === handler);
    if (spec === undefined) throw new Error(`${handler} is not in the table`);
    return spec;
  }

  /** A spec whose service set names other components than its environment was derived from. */
  const withComponents = (spec: AnyFunctionSpec, components: readonly ComponentName[]): AnyFunctionSpec => ({
    ...spec,
    services: { ...spec.services, components },
  });

  it("a function whose binds miss a variable its handler reads fails the synth, naming it", () => {
    const spec = specOf("publish-events");
    const broken = withComponents(
      spec,
      spec.services.components.filter((name) => name !== "events"),
    );
    expect(synthWith([broken])).toThrow(/publish-events reads EVENT_BUS_NAME, but no bind sets it/);
  });

  it("a function bound to a variable its handler does not read fails the synth", () => {
    const spec = specOf("get-subscription");
    expect(
      synthWith([
        specOf("authorize-merchant"),
        withComponents(spec, [...spec.services.components, "events"]),
      ]),
    ).toThrow(/get-subscription does not read EVENT_BUS_NAME/);
  });

  it("each row's run is the one its name's handler file exports (the generated entry imports it by that name)", async () => {
    for (const spec of BILLING_FUNCTIONS) {
      const module: Record<string, unknown> = await import(`../../../functions/handlers/${spec.name}.ts`);
      expect(module.run, spec.name).toBe(spec.run);
      expect(Object.keys(module), spec.name).toEqual(["run"]);
    }
  });

  it("a gateway caller without a concurrency bound fails the synth", () => {
    expect(synthWith([{ ...specOf("sweep-attempts"), concurrency: undefined }])).toThrow(
      /sweep-attempts calls the gateway/,
    );
  });

  it("unset gateway URLs synthesize with a warning and a rule that refuses the deployment", () => {
    const placeholder = synthBillingApp({});
    expect(placeholder.service.toJSON().Rules).toMatchObject({
      GatewayUrlsRequired: {
        Assertions: [{ AssertDescription: expect.stringContaining("billing:paymentBaseUrl") }],
      },
    });
    placeholder.service.hasParameter("GatewayUrlsConfigured", { Default: "no" });
    expect(JSON.stringify(synth.service.toJSON().Rules ?? {})).not.toContain("GatewayUrlsRequired");
  });
});
