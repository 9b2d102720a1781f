import { CfnOutput, Duration, RemovalPolicy, Stack, type StackProps } from "aws-cdk-lib";
import {
  type Attribute,
  AttributeType,
  Billing,
  type GlobalSecondaryIndexPropsV2,
  type ITableV2,
  ProjectionType,
  StreamViewType,
  TableV2,
} from "aws-cdk-lib/aws-dynamodb";
import { EventBus, type IEventBus } from "aws-cdk-lib/aws-events";
import { type IManagedPolicy, ManagedPolicy, PolicyStatement } from "aws-cdk-lib/aws-iam";
import {
  BlockPublicAccess,
  Bucket,
  BucketEncryption,
  type CfnBucket,
  type IBucket,
  ObjectOwnership,
} from "aws-cdk-lib/aws-s3";
import { type ISecret, Secret } from "aws-cdk-lib/aws-secretsmanager";
import { type IQueue, Queue, QueueEncryption } from "aws-cdk-lib/aws-sqs";
import { Construct } from "constructs";
import { billingTableDefinition, TTL_ATTRIBUTE } from "../functions/adapters/table/billing-table";
import { WEBHOOK_MAX_RECEIVE_COUNT } from "../functions/core/delivery/webhooks";
import { acknowledge } from "./nag";
import type { STATEFUL_OUTPUTS } from "./stack-outputs";

/** Receives of a message before SQS moves it to the DLQ: enough for the charge policy's backoff ladder (~45 min). */
export const MAX_RECEIVE_COUNT = 8;

/** A work queue and its dead-letter queue. */
export interface WorkQueue {
  readonly queue: IQueue;
  readonly deadLetterQueue: IQueue;
  /** A consumer's timeout must stay well under it (Lambda wants ≥ 6 × the function timeout). */
  readonly visibilityTimeout: Duration;
}

/** Everything that holds data, and what the service stack binds its functions to. */
export interface BillingStatefulResources {
  readonly table: ITableV2;
  /** Names of the table's GSIs, for index-scoped grants. */
  readonly tableIndexes: readonly string[];
  readonly chargeQueue: WorkQueue;
  readonly intakeQueue: WorkQueue;
  /** One message per billing event and webhook endpoint, waiting out its backoff between attempts (3 days at most). */
  readonly webhookQueue: WorkQueue;
  /** Scheduled invocations that could not be delivered or that failed every retry. */
  readonly scheduleDeadLetters: IQueue;
  /** Positions of table-stream batches publish-events failed every retry (the outbox sweep delivers their events). */
  readonly eventDeadLetters: IQueue;
  readonly eventBus: IEventBus;
  readonly secrets: {
    /** {mid, apiKey, aesKey, partnerApiKey}. */
    readonly gateway: ISecret;
    /** {current, next}: the gateway's webhook signing secrets (two during a rotation). */
    readonly webhook: ISecret;
    /** {token, expiredAt}: the partner JWT, written by the refresher. */
    readonly partnerToken: ISecret;
    /** The hash of the merchant API key (the authorizer compares the bearer's hash with it). */
    readonly merchantApiKey: ISecret;
    /** {current, next?}: the HMAC key our page links are signed with (generated at deploy). */
    readonly pageLinks: ISecret;
  };
  /** Rendered documents (invoices' and credit notes' PDFs), handed out by presigned links only. */
  readonly documentBucket: IBucket;
  /** Reading and writing its files: the one grant serve-document takes on it. */
  readonly documentFilesAccess: IManagedPolicy;
}

/**
 * The stateful half: the billing table, the work queues, the secrets and the event bus. Nothing here has a physical
 * name; the table is retained and deletion-protected. Deploy it once; the service stack changes freely on top of it.
 */
export class BillingStatefulStack extends Stack {
  readonly resources: BillingStatefulResources;

  constructor(scope: Construct, id: string, props?: StackProps) {
    super(scope, id, props);
    const { table, indexes } = billingTable(this);
    const scheduleDeadLetters = encryptedQueue(this, "ScheduleDeadLetters", {
      retentionPeriod: Duration.days(14),
    });
    acknowledge(
      scheduleDeadLetters,
      "AwsSolutions-SQS3",
      "This queue is itself a dead-letter queue (of the EventBridge Scheduler targets and the scheduled functions' async invocations), which cdk-nag cannot see from an SQS redrive policy.",
    );
    const eventDeadLetters = encryptedQueue(this, "EventDeliveryDeadLetters", {
      retentionPeriod: Duration.days(14),
    });
    acknowledge(
      eventDeadLetters,
      "AwsSolutions-SQS3",
      "This queue is itself a dead-letter queue (the on-failure destination of the table stream's event source mapping), which cdk-nag cannot see from an SQS redrive policy.",
    );
    this.resources = {
      table,
      tableIndexes: indexes,
      chargeQueue: new WorkQueueConstruct(this, "ChargeWork", { visibilityTimeout: Duration.minutes(6) }),
      intakeQueue: new WorkQueueConstruct(this, "IntakeWork", { visibilityTimeout: Duration.minutes(3) }),
      // A delivery is retried for 3 days from its first attempt: its message (kept 4 days) outlives that.
      webhookQueue: new WorkQueueConstruct(this, "WebhookDelivery", {
        visibilityTimeout: Duration.minutes(3),
        maxReceiveCount: WEBHOOK_MAX_RECEIVE_COUNT,
      }),
      scheduleDeadLetters,
      eventDeadLetters,
      ...documentBucket(this),
      eventBus: new EventBus(this, "Events", {
        description:
          "Billing events out: charge succeeded/failed, subscription past_due/canceled, chargeback",
      }),
      secrets: {
        gateway: placeholderSecret(this, "GatewayCredentials", {
          description:
            "Gateway credentials JSON {mid, apiKey, aesKey, partnerApiKey}: put the real values after deploying",
          fields: ["mid", "apiKey", "aesKey", "partnerApiKey"],
          rotation:
            "Issued by the gateway to the merchant; rotated by re-issuing at the gateway and putting the new value.",
          retain: true,
        }),
        webhook: placeholderSecret(this, "WebhookSecrets", {
          description:
            "Gateway webhook signing secrets JSON {current, next}: put the real values after deploying",
          fields: ["current", "next"],
          rotation: "Issued by the gateway; rotated by putting the new one under next, then under current.",
          retain: true,
        }),
        partnerToken: placeholderSecret(this, "PartnerToken", {
          description: "Partner API JWT JSON {token, expiredAt}: written by the partner-token refresher",
          fields: ["token", "expiredAt"],
          rotation: "Rewritten by the scheduled refresh-partner-token function before the 24 h JWT expires.",
        }),
        merchantApiKey: placeholderSecret(this, "MerchantApiKeyHash", {
          description:
            'Merchant API key digests JSON {"sha256": ["<hex SHA-256 of a key>", ...]}: put it after deploying',
          fields: ["sha256"],
          rotation: "Chosen by the merchant; rotated by putting the hash of a new key.",
          retain: true,
        }),
        pageLinks: pageLinkSecret(this),
      },
    };
    this.#outputs();
  }

  /** What `cdk deploy --outputs-file` writes for the ops CLI; no exports, so nothing pins them. */
  #outputs() {
    const { table, chargeQueue, intakeQueue, webhookQueue, secrets } = this.resources;
    const outputs: { readonly [id in keyof typeof STATEFUL_OUTPUTS]: string } = {
      Region: this.region,
      TableName: table.tableName,
      ChargeQueueUrl: chargeQueue.queue.queueUrl,
      ChargeDeadLetterQueueUrl: chargeQueue.deadLetterQueue.queueUrl,
      IntakeQueueUrl: intakeQueue.queue.queueUrl,
      IntakeDeadLetterQueueUrl: intakeQueue.deadLetterQueue.queueUrl,
      WebhookQueueUrl: webhookQueue.queue.queueUrl,
      WebhookDeadLetterQueueUrl: webhookQueue.deadLetterQueue.queueUrl,
      GatewaySecretArn: secrets.gateway.secretArn,
      WebhookSecretsArn: secrets.webhook.secretArn,
      PartnerTokenSecretArn: secrets.partnerToken.secretArn,
      MerchantApiKeyHashSecretArn: secrets.merchantApiKey.secretArn,
      PageLinkSecretArn: secrets.pageLinks.secretArn,
    };
    for (const [id, value] of Object.entries(outputs)) new CfnOutput(this, id, { value });
  }
}

/**
 * The documents' bucket: private (every public access blocked, TLS only), encrypted, and a cache of what the table
 * holds — a PDF is rendered from its stored document on first ask — so a file not asked for in a year expires (and is
 * rendered again if it ever is).
 */
function documentBucket(scope: Stack): { documentBucket: Bucket; documentFilesAccess: ManagedPolicy } {
  const bucket = new Bucket(scope, "Documents", {
    encryption: BucketEncryption.S3_MANAGED,
    blockPublicAccess: BlockPublicAccess.BLOCK_ALL,
    enforceSSL: true,
    objectOwnership: ObjectOwnership.BUCKET_OWNER_ENFORCED,
    lifecycleRules: [
      { expiration: Duration.days(365), abortIncompleteMultipartUploadAfter: Duration.days(1) },
    ],
    removalPolicy: RemovalPolicy.RETAIN,
  });
  acknowledge(
    bucket,
    "AwsSolutions-S1",
    "Rendered copies of documents the table holds, read only through presigned links serve-document hands out (and logs); server access logs would add a second bucket for nothing a person reads.",
  );
  // Made here, beside the bucket: a grant the service stack wrote itself would name the bucket through an export
  // whose generated name no acknowledgement can spell.
  const access = new ManagedPolicy(scope, "DocumentFilesAccess", {
    description: "Read and write the documents' files (serve-document)",
    statements: [
      new PolicyStatement({
        actions: ["s3:GetObject", "s3:PutObject"],
        resources: [bucket.arnForObjects("*")],
      }),
      // A missing file reads as missing (404), not as forbidden.
      new PolicyStatement({ actions: ["s3:ListBucket"], resources: [bucket.bucketArn] }),
    ],
  });
  acknowledge(
    access,
    "AwsSolutions-IAM5",
    "Every file of the documents' bucket: a file is named by its document's number, which no policy can list ahead.",
    `Resource::<${scope.getLogicalId(bucket.node.defaultChild as CfnBucket)}.Arn>/*`,
  );
  return { documentBucket: bucket, documentFilesAccess: access };
}

/** The billing table from billingTableDefinition(): the one source of its key schema, indexes and attribute types. */
function billingTable(scope: Construct): { table: TableV2; indexes: string[] } {
  // The name is CloudFormation's to choose; only the shape of the definition is used.
  const definition = billingTableDefinition("unused");
  const attribute = (name: string): Attribute => {
    const type = definition.AttributeDefinitions?.find((a) => a.AttributeName === name)?.AttributeType;
    const types = { S: AttributeType.STRING, N: AttributeType.NUMBER, B: AttributeType.BINARY } as const;
    if (type === undefined) throw new Error(`billing table: attribute ${name} has no definition`);
    return { name, type: types[type] };
  };
  const keys = (schema: { AttributeName?: string; KeyType?: string }[] | undefined) => {
    const name = (keyType: string) => schema?.find((k) => k.KeyType === keyType)?.AttributeName;
    const partition = name("HASH");
    const sort = name("RANGE");
    if (partition === undefined) throw new Error("billing table: a key schema without HASH key");
    return { partitionKey: attribute(partition), sortKey: sort === undefined ? undefined : attribute(sort) };
  };
  const projections = {
    ALL: ProjectionType.ALL,
    KEYS_ONLY: ProjectionType.KEYS_ONLY,
    INCLUDE: ProjectionType.INCLUDE,
  } as const;
  const globalSecondaryIndexes = (definition.GlobalSecondaryIndexes ?? []).map(
    (index): GlobalSecondaryIndexPropsV2 => {
      if (index.IndexName === undefined) throw new Error("billing table: an index without a name");
      return {
        indexName: index.IndexName,
        ...keys(index.KeySchema),
        projectionType: projections[index.Projection?.ProjectionType ?? "ALL"],
        nonKeyAttributes: index.Projection?.NonKeyAttributes,
      };
    },
  );
  const table = new TableV2(scope, "BillingTable", {
    ...keys(definition.KeySchema),
    billing: Billing.onDemand(),
    globalSecondaryIndexes,
    timeToLiveAttribute: TTL_ATTRIBUTE,
    // The outboxes' delivery (publish-events): each write's new and old image, in order per item.
    dynamoStream: StreamViewType.NEW_AND_OLD_IMAGES,
    pointInTimeRecoverySpecification: { pointInTimeRecoveryEnabled: true },
    deletionProtection: true,
    removalPolicy: RemovalPolicy.RETAIN,
  });
  return { table, indexes: globalSecondaryIndexes.map((index) => index.indexName) };
}

function encryptedQueue(scope: Construct, id: string, props: { retentionPeriod?: Duration } = {}): Queue {
  return new Queue(scope, id, { ...props, encryption: QueueEncryption.SQS_MANAGED, enforceSSL: true });
}

class WorkQueueConstruct extends Construct implements WorkQueue {
  readonly queue: Queue;
  readonly deadLetterQueue: Queue;
  readonly visibilityTimeout: Duration;

  constructor(
    scope: Construct,
    id: string,
    props: { visibilityTimeout: Duration; maxReceiveCount?: number },
  ) {
    super(scope, id);
    this.visibilityTimeout = props.visibilityTimeout;
    this.deadLetterQueue = encryptedQueue(this, "DeadLetters", { retentionPeriod: Duration.days(14) });
    this.queue = new Queue(this, "Queue", {
      visibilityTimeout: props.visibilityTimeout,
      retentionPeriod: Duration.days(4),
      encryption: QueueEncryption.SQS_MANAGED,
      enforceSSL: true,
      deadLetterQueue: {
        queue: this.deadLetterQueue,
        maxReceiveCount: props.maxReceiveCount ?? MAX_RECEIVE_COUNT,
      },
    });
  }
}

/**
 * A JSON secret created with empty fields and one generated `placeholder` key: no value is ever in the template,
 * and the functions refuse it (schema check) until the merchant puts the real one.
 */
function placeholderSecret(
  scope: Construct,
  id: string,
  props: { description: string; fields: readonly string[]; rotation: string; retain?: boolean },
): Secret {
  const secret = new Secret(scope, id, {
    description: props.description,
    // What the merchant put in outlives the stack; the partner token is only a cache.
    removalPolicy: props.retain ? RemovalPolicy.RETAIN : RemovalPolicy.DESTROY,
    generateSecretString: {
      secretStringTemplate: JSON.stringify(Object.fromEntries(props.fields.map((field) => [field, ""]))),
      generateStringKey: "placeholder",
      excludePunctuation: true,
    },
  });
  acknowledge(secret, "AwsSolutions-SMG4", `No Secrets Manager rotation Lambda: ${props.rotation}`);
  return secret;
}

/**
 * The key our page links are signed with: generated at deploy, so nothing is to be put by hand. A link made under it
 * lives minutes to a day, so losing it (a stack replaced) only ends the links open at that moment.
 */
function pageLinkSecret(scope: Construct): Secret {
  const secret = new Secret(scope, "PageLinkKey", {
    description: "HMAC key JSON {current, next?} of the hosted checkout's and the customer portal's links",
    generateSecretString: {
      secretStringTemplate: JSON.stringify({}),
      generateStringKey: "current",
      passwordLength: 64,
      excludePunctuation: true,
    },
  });
  acknowledge(
    secret,
    "AwsSolutions-SMG4",
    "No Secrets Manager rotation Lambda: rotated by putting a new key under next, then moving it to current once the links signed before have expired (a day).",
  );
  return secret;
}
