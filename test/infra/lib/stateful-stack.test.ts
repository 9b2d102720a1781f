import { Match } from "aws-cdk-lib/assertions";
import { beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { billingTableDefinition, TTL_ATTRIBUTE } from "../../../functions/adapters/table/billing-table";
import { ledgerChargeSchema, ledgerRefundSchema } from "../../../functions/core/base/model";
import { WEBHOOK_MAX_RECEIVE_COUNT, webhookAttemptSchedule } from "../../../functions/core/delivery/webhooks";
import type { STATEFUL_OUTPUTS } from "../../../lib/stack-outputs";
import { MAX_RECEIVE_COUNT } from "../../../lib/stateful-stack";
import { resourcesOf, synthBillingApp } from "../billing-app";

let synth: ReturnType<typeof synthBillingApp>;
beforeAll(() => {
  synth = synthBillingApp();
});

describe("documents' bucket", () => {
  it("is private, encrypted, TLS only, retained, and lets a rendered file not asked for in a year expire", () => {
    synth.stateful.hasResource("AWS::S3::Bucket", {
      DeletionPolicy: "Retain",
      Properties: Match.objectLike({
        BucketEncryption: {
          ServerSideEncryptionConfiguration: [{ ServerSideEncryptionByDefault: { SSEAlgorithm: "AES256" } }],
        },
        PublicAccessBlockConfiguration: {
          BlockPublicAcls: true,
          BlockPublicPolicy: true,
          IgnorePublicAcls: true,
          RestrictPublicBuckets: true,
        },
        LifecycleConfiguration: {
          Rules: [
            Match.objectLike({
              ExpirationInDays: 365,
              AbortIncompleteMultipartUpload: { DaysAfterInitiation: 1 },
              Status: "Enabled",
            }),
          ],
        },
      }),
    });
    expect(JSON.stringify(synth.stateful.findResources("AWS::S3::BucketPolicy"))).toMatch(
      /"aws:SecureTransport":"false"/,
    );
    const [[, access] = []] = resourcesOf(synth.stateful, "AWS::IAM::ManagedPolicy");
    expect(JSON.stringify(access?.Properties?.PolicyDocument)).toMatch(
      /"Action":\["s3:GetObject","s3:PutObject"\].*"Action":"s3:ListBucket"/,
    );
  });
});

describe("billing table", () => {
  it("has the key schema and indexes of billingTableDefinition, on demand, with TTL", () => {
    const definition = billingTableDefinition("any");
    synth.stateful.hasResourceProperties("AWS::DynamoDB::GlobalTable", {
      BillingMode: "PAY_PER_REQUEST",
      KeySchema: definition.KeySchema,
      AttributeDefinitions: Match.arrayWith(definition.AttributeDefinitions ?? []),
      GlobalSecondaryIndexes: (definition.GlobalSecondaryIndexes ?? []).map((index) =>
        Match.objectLike({
          IndexName: index.IndexName,
          KeySchema: index.KeySchema,
          Projection: index.Projection,
        }),
      ),
      TimeToLiveSpecification: { AttributeName: TTL_ATTRIBUTE, Enabled: true },
    });
  });

  it("projects no outbox and no logged event into any index: each holds keys, or what its query compares", () => {
    const [[, table] = ["", {}]] = resourcesOf(synth.stateful, "AWS::DynamoDB::GlobalTable");
    const indexes = z
      .array(
        z.object({
          IndexName: z.string(),
          Projection: z.object({
            ProjectionType: z.string(),
            NonKeyAttributes: z.array(z.string()).optional(),
          }),
        }),
      )
      .parse(table.Properties?.GlobalSecondaryIndexes);
    const projection = (name: string) => indexes.find((index) => index.IndexName === name)?.Projection;
    for (const { Projection } of indexes.filter((index) => index.Projection.ProjectionType === "INCLUDE")) {
      expect(Projection.NonKeyAttributes).not.toContain("outbox");
      expect(Projection.NonKeyAttributes).not.toContain("event");
    }
    expect(projection("ledger")?.NonKeyAttributes).toEqual(
      expect.arrayContaining([
        ...Object.keys(ledgerChargeSchema.shape),
        ...Object.keys(ledgerRefundSchema.shape),
      ]),
    );
    expect(projection("ledger")?.NonKeyAttributes).not.toContain("refunds");
    expect(projection("list")).toEqual({ ProjectionType: "INCLUDE", NonKeyAttributes: ["plan"] });
    expect(projection("open")).toEqual({ ProjectionType: "KEYS_ONLY" });
    expect(projection("by_subscription")).toEqual({ ProjectionType: "KEYS_ONLY" });
  });

  it("has point-in-time recovery and deletion protection, and is retained", () => {
    synth.stateful.hasResource("AWS::DynamoDB::GlobalTable", {
      DeletionPolicy: "Retain",
      UpdateReplacePolicy: "Retain",
      Properties: Match.objectLike({
        Replicas: [
          Match.objectLike({
            PointInTimeRecoverySpecification: { PointInTimeRecoveryEnabled: true },
            DeletionProtectionEnabled: true,
          }),
        ],
      }),
    });
  });

  it("has no physical name", () => {
    for (const [, table] of resourcesOf(synth.stateful, "AWS::DynamoDB::GlobalTable")) {
      expect(table.Properties?.TableName).toBeUndefined();
    }
  });
});

describe("queues", () => {
  it("every work queue redrives to a DLQ after MAX_RECEIVE_COUNT receives (the webhook queue after its whole retry schedule); every queue is encrypted and TLS-only", () => {
    const queues = resourcesOf(synth.stateful, "AWS::SQS::Queue");
    const redriven = queues.filter(([, queue]) => queue.Properties?.RedrivePolicy !== undefined);
    expect(redriven.map(([id]) => id).sort()).toEqual([
      expect.stringMatching(/^ChargeWorkQueue/),
      expect.stringMatching(/^IntakeWorkQueue/),
      expect.stringMatching(/^WebhookDeliveryQueue/),
    ]);
    for (const [id, queue] of redriven) {
      const receives = id.startsWith("WebhookDelivery") ? WEBHOOK_MAX_RECEIVE_COUNT : MAX_RECEIVE_COUNT;
      expect(queue.Properties?.RedrivePolicy).toMatchObject({ maxReceiveCount: receives });
      // A delivery is retried for 3 days from its first attempt: its message outlives that.
      expect(queue.Properties?.MessageRetentionPeriod).toBe(4 * 86_400);
    }
    expect(WEBHOOK_MAX_RECEIVE_COUNT).toBeGreaterThan(webhookAttemptSchedule().length);
    for (const [id, queue] of queues) {
      expect(queue.Properties?.SqsManagedSseEnabled, id).toBe(true);
      expect(queue.Properties?.QueueName, id).toBeUndefined();
      synth.stateful.hasResourceProperties("AWS::SQS::QueuePolicy", {
        Queues: [{ Ref: id }],
        PolicyDocument: {
          Statement: Match.arrayWith([
            Match.objectLike({ Effect: "Deny", Condition: { Bool: { "aws:SecureTransport": "false" } } }),
          ]),
        },
      });
    }
  });

  it("every queue without a redrive policy is a dead-letter queue with an alarm on its depth", () => {
    const queues = resourcesOf(synth.stateful, "AWS::SQS::Queue");
    const targets = JSON.stringify(queues.map(([, queue]) => queue.Properties?.RedrivePolicy));
    const schedules = JSON.stringify(synth.service.findResources("AWS::Scheduler::Schedule"));
    const mappings = JSON.stringify(synth.service.findResources("AWS::Lambda::EventSourceMapping"));
    const alarms = Object.values(synth.monitoring.findResources("AWS::CloudWatch::Alarm")).map((alarm) =>
      JSON.stringify(alarm),
    );
    const deadLetterQueues = queues.filter(([, queue]) => queue.Properties?.RedrivePolicy === undefined);
    expect(deadLetterQueues).toHaveLength(5);
    for (const [id] of deadLetterQueues) {
      const used = targets.includes(id) || schedules.includes(id) || mappings.includes(id);
      expect(used, `${id} is nobody's DLQ`).toBe(true);
      const depthAlarms = alarms.filter(
        (alarm) => alarm.includes("ApproximateNumberOfMessagesVisible") && alarm.includes(id),
      );
      expect(depthAlarms, `${id} has no depth alarm`).toHaveLength(1);
      expect(JSON.parse(depthAlarms[0] ?? "{}").Properties).toMatchObject({
        Threshold: 0,
        ComparisonOperator: "GreaterThanThreshold",
      });
    }
  });
});

describe("secrets", () => {
  it("hold no value in the template: empty fields and a generated key only", () => {
    const secrets = resourcesOf(synth.stateful, "AWS::SecretsManager::Secret");
    expect(secrets).toHaveLength(5);
    for (const [id, secret] of secrets) {
      expect(secret.Properties?.SecretString, id).toBeUndefined();
      const generate = z
        .object({ SecretStringTemplate: z.string() })
        .parse(secret.Properties?.GenerateSecretString);
      const template = z.record(z.string(), z.string()).parse(JSON.parse(generate.SecretStringTemplate));
      expect(
        Object.values(template).every((value) => value === ""),
        id,
      ).toBe(true);
    }
  });
});

describe("outputs", () => {
  it("name the table, the work queues and their DLQs, every secret and the region, without exports", () => {
    const outputs = z
      .record(z.string(), z.object({ Value: z.unknown(), Export: z.unknown().optional() }))
      .parse(synth.stateful.findOutputs("*"));
    const only = (type: string, prefix: string) => {
      const ids = resourcesOf(synth.stateful, type)
        .map(([id]) => id)
        .filter((id) => id.startsWith(prefix));
      expect(ids, `${prefix}: one ${type}`).toHaveLength(1);
      return { Ref: ids[0] };
    };
    const expected: Record<keyof typeof STATEFUL_OUTPUTS, unknown> = {
      Region: { Ref: "AWS::Region" },
      TableName: only("AWS::DynamoDB::GlobalTable", "BillingTable"),
      ChargeQueueUrl: only("AWS::SQS::Queue", "ChargeWorkQueue"),
      ChargeDeadLetterQueueUrl: only("AWS::SQS::Queue", "ChargeWorkDeadLetters"),
      IntakeQueueUrl: only("AWS::SQS::Queue", "IntakeWorkQueue"),
      IntakeDeadLetterQueueUrl: only("AWS::SQS::Queue", "IntakeWorkDeadLetters"),
      WebhookQueueUrl: only("AWS::SQS::Queue", "WebhookDeliveryQueue"),
      WebhookDeadLetterQueueUrl: only("AWS::SQS::Queue", "WebhookDeliveryDeadLetters"),
      GatewaySecretArn: only("AWS::SecretsManager::Secret", "GatewayCredentials"),
      WebhookSecretsArn: only("AWS::SecretsManager::Secret", "WebhookSecrets"),
      PartnerTokenSecretArn: only("AWS::SecretsManager::Secret", "PartnerToken"),
      MerchantApiKeyHashSecretArn: only("AWS::SecretsManager::Secret", "MerchantApiKeyHash"),
      PageLinkSecretArn: only("AWS::SecretsManager::Secret", "PageLinkKey"),
    };
    for (const [id, value] of Object.entries(expected)) {
      expect(outputs[id], id).toEqual({ Value: value });
    }
  });
});

describe("the table's stream", () => {
  it("carries each write's new and old image (the outboxes' delivery), and the outbox index is keys only", () => {
    const [[, table] = ["", {}]] = resourcesOf(synth.stateful, "AWS::DynamoDB::GlobalTable");
    expect(table.Properties).toMatchObject({
      StreamSpecification: { StreamViewType: "NEW_AND_OLD_IMAGES" },
      GlobalSecondaryIndexes: expect.arrayContaining([
        expect.objectContaining({ IndexName: "outbox", Projection: { ProjectionType: "KEYS_ONLY" } }),
      ]),
    });
  });
});
