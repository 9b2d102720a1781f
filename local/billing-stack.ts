import { initializeDueWatermark } from "../functions/adapters/due-index";
import { parseChargeMessage } from "../functions/adapters/sqs-charge-queue";
import { pollOnce } from "../functions/adapters/sqs-poller";
import type { RecordResult } from "../functions/adapters/sqs-work-results";
import { type BillingServices, createBillingServices } from "../functions/billing-services";
import { processChargeMessage } from "../functions/core/charge-engine";
import type { ChargePolicy } from "../functions/core/charge-policy";
import { type ChargeRunReport, runChargeRun } from "../functions/core/charge-run";
import { processIntakeMessage } from "../functions/core/intake";
import { parseIntakeMessage } from "../functions/core/intake-messages";
import { type JanitorReport, runJanitor } from "../functions/core/janitor";
import type { BillingEvent } from "../functions/core/ports";
import type { FaultConfigOrSettings } from "../sandbox/faults";
import { type Merchant, TEST_MERCHANT } from "../sandbox/merchant-config";
import { type Sandbox, startSandbox } from "../sandbox/server";
import { type Dynalite, LOCAL_CREDENTIALS, LOCAL_REGION, startDynalite } from "./dynamodb-emulator";
import { type EventBridgeStandIn, startEventBridgeStandIn } from "./eventbridge-stand-in";
import { type SecretsManagerStandIn, startSecretsManagerStandIn } from "./secrets-manager-stand-in";
import { type LocalSqs, type QueueWithDlq, startSqs } from "./sqs-emulator";

const DEFAULT_GATEWAY_TIMEOUT_MS = 2_000;

export interface BillingStackOptions {
  /** Where the shared clock starts (the sandbox's and ours). */
  readonly start?: Date;
  readonly seed?: number;
  readonly faults?: FaultConfigOrSettings;
  readonly policy?: Partial<ChargePolicy>;
  /** Receives of a charge message before the redrive policy moves it to the DLQ. */
  readonly maxReceiveCount?: number;
  /** Seconds a received charge message stays invisible (default 30): a crashed worker's message returns after it. */
  readonly visibilityTimeoutSeconds?: number;
  readonly gatewayTimeoutMs?: number;
  /** Public base of our webhooks (recurring_noti_url): the local HTTP API's `<url>/webhooks`. */
  readonly webhookBaseUrl?: string;
  /** The sandbox's port (0, the default, picks a free one). */
  readonly sandboxPort?: number;
  /** Where dynalite keeps its data across restarts (in memory when unset). */
  readonly dataDir?: string;
  /** The billing table's name (a fresh one when unset; give one to find a persisted table again). */
  readonly tableName?: string;
}

/** The gateway secret's JSON for a sandbox merchant. */
export function gatewaySecretOf(merchant: Merchant) {
  const { mid, apiKey, aesKeyHex, partnerApiKey } = merchant;
  return { mid, apiKey, aesKey: aesKeyHex, partnerApiKey };
}

export interface DrainReport {
  readonly processed: number;
  readonly results: readonly RecordResult[];
}

/**
 * The billing system on one machine: dynalite, local-aws-sqs and the gateway sandbox on loopback, one shared clock,
 * and the real adapters built by the composition root. The charge worker runs as the SQS event source mapping would:
 * batches of Lambda-shaped records, partial batch failures, the queue's redrive policy.
 */
export class BillingStack {
  private constructor(
    readonly sandbox: Sandbox,
    readonly dynamo: Dynalite,
    readonly sqs: LocalSqs,
    readonly chargeQueue: QueueWithDlq,
    readonly services: BillingServices,
    /** Events the core published, in order (EventBridge stands here in local mode). */
    readonly events: BillingEvent[],
    /** Secrets Manager for functions built from the environment: the gateway and partner-token secrets. */
    readonly secretsManager: SecretsManagerStandIn,
    /** EventBridge for functions built from the environment (their events land here, not in `events`). */
    readonly eventBridge: EventBridgeStandIn,
    /** Where the webhook receivers queue what process-intake handles. */
    readonly intakeQueue: QueueWithDlq,
    /** The same services with another gateway timeout (e.g. patient sign-ups beside impatient charge workers). */
    readonly servicesFor: (gatewayTimeoutMs: number) => BillingServices,
    private readonly settings: {
      readonly tableName: string;
      readonly gatewaySecretArn: string;
      readonly webhookSecretsArn: string;
      readonly partnerTokenSecretArn: string;
      readonly webhookBaseUrl: string;
      readonly policy?: Partial<ChargePolicy>;
    },
  ) {}

  static async start(options: BillingStackOptions = {}): Promise<BillingStack> {
    const sandbox = await startSandbox({
      port: options.sandboxPort ?? 0,
      start: options.start,
      seed: options.seed,
      faults: options.faults,
    });
    const dynamo = await startDynalite({ path: options.dataDir });
    const sqs = await startSqs();
    const tableName = await dynamo.createBillingTable(options.tableName);
    await initializeDueWatermark(dynamo.client, tableName, sandbox.clock.now());
    const chargeQueue = await sqs.createQueueWithDlq("charge-work", {
      maxReceiveCount: options.maxReceiveCount ?? 8,
      visibilityTimeout: options.visibilityTimeoutSeconds ?? 30,
    });
    const events: BillingEvent[] = [];
    const webhookBase = options.webhookBaseUrl ?? "http://127.0.0.1:9/webhooks";
    const servicesFor = (gatewayTimeoutMs: number) =>
      createBillingServices({
        dynamo: dynamo.client,
        tableName,
        sqs: sqs.client,
        chargeQueueUrl: chargeQueue.queueUrl,
        events: { publish: async (published) => void events.push(...published) },
        gateway: {
          paymentBaseUrl: sandbox.url,
          webhookAdminBaseUrl: sandbox.url,
          partnerBaseUrl: sandbox.url,
          mid: TEST_MERCHANT.mid,
          apiKey: TEST_MERCHANT.apiKey,
          aesKey: TEST_MERCHANT.aesKeyHex,
          partnerApiKey: TEST_MERCHANT.partnerApiKey,
          timeoutMs: gatewayTimeoutMs,
          readRetryMinDelayMs: 10,
        },
        clock: sandbox.clock,
        webhookBaseUrl: webhookBase,
        policy: options.policy,
      });
    const services = servicesFor(options.gatewayTimeoutMs ?? DEFAULT_GATEWAY_TIMEOUT_MS);
    const secretsManager = await startSecretsManagerStandIn(LOCAL_REGION);
    const eventBridge = await startEventBridgeStandIn();
    const gatewaySecretArn = secretsManager.setSecret(
      "billing/gateway",
      JSON.stringify(gatewaySecretOf(TEST_MERCHANT)),
    );
    const partnerTokenSecretArn = secretsManager.setSecret("billing/partner-token");
    const webhookSecretsArn = secretsManager.setSecret(
      "billing/webhook",
      JSON.stringify({ current: TEST_MERCHANT.webhookSecret }),
    );
    const intakeQueue = await sqs.createQueueWithDlq("intake", { maxReceiveCount: 8, visibilityTimeout: 30 });
    return new BillingStack(
      sandbox,
      dynamo,
      sqs,
      chargeQueue,
      services,
      events,
      secretsManager,
      eventBridge,
      intakeQueue,
      servicesFor,
      {
        tableName,
        gatewaySecretArn,
        webhookSecretsArn,
        partnerTokenSecretArn,
        webhookBaseUrl: webhookBase,
        policy: options.policy,
      },
    );
  }

  /**
   * The variables a Lambda handler would get, pointing at this stack: the SDK reaches the emulators and stand-ins
   * through AWS_ENDPOINT_URL_*, with fake credentials. The gateway secret holds the sandbox's test merchant; the
   * partner-token secret starts without a value. Set them on process.env to run handlers end to end.
   */
  environment(): Record<string, string> {
    const { tableName, gatewaySecretArn, partnerTokenSecretArn, webhookSecretsArn, policy, webhookBaseUrl } =
      this.settings;
    return {
      AWS_REGION: LOCAL_REGION,
      AWS_ACCESS_KEY_ID: LOCAL_CREDENTIALS.accessKeyId,
      AWS_SECRET_ACCESS_KEY: LOCAL_CREDENTIALS.secretAccessKey,
      AWS_ENDPOINT_URL_DYNAMODB: this.dynamo.endpoint,
      AWS_ENDPOINT_URL_SQS: this.sqs.endpoint,
      AWS_ENDPOINT_URL_SECRETS_MANAGER: this.secretsManager.endpoint,
      AWS_ENDPOINT_URL_EVENTBRIDGE: this.eventBridge.endpoint,
      TABLE_NAME: tableName,
      CHARGE_QUEUE_URL: this.chargeQueue.queueUrl,
      EVENT_BUS_NAME: "billing-local",
      GATEWAY_SECRET_ARN: gatewaySecretArn,
      PARTNER_TOKEN_SECRET_ARN: partnerTokenSecretArn,
      PAYMENT_BASE_URL: this.sandbox.url,
      WEBHOOK_ADMIN_BASE_URL: this.sandbox.url,
      PARTNER_BASE_URL: this.sandbox.url,
      PUBLIC_WEBHOOK_BASE_URL: webhookBaseUrl,
      INTAKE_QUEUE_URL: this.intakeQueue.queueUrl,
      WEBHOOK_SECRETS_ARN: webhookSecretsArn,
      ...(policy === undefined ? {} : { CHARGE_POLICY: JSON.stringify(policy) }),
    };
  }

  get clock() {
    return this.sandbox.clock;
  }

  chargeRun(): Promise<ChargeRunReport> {
    return runChargeRun(this.services);
  }

  janitor(): Promise<JanitorReport> {
    return runJanitor(this.services);
  }

  /** One poll of the charge queue by the worker: receive up to 10, process, delete the successes. */
  pollChargeQueue() {
    return pollOnce({
      client: this.sqs.client,
      queueUrl: this.chargeQueue.queueUrl,
      parse: parseChargeMessage,
      handler: (message, receiveCount) => processChargeMessage(message, receiveCount, this.services),
    });
  }

  /** Polls until a poll finds nothing visible: messages waiting out a retry delay are left for a later drain. */
  async drainChargeQueue(): Promise<DrainReport> {
    const results: RecordResult[] = [];
    for (;;) {
      const outcome = await this.pollChargeQueue();
      if (outcome.results.length === 0) return { processed: results.length, results };
      results.push(...outcome.results);
    }
  }

  /** One poll of the intake queue by process-intake's logic: receive up to 10, process, delete the successes. */
  pollIntakeQueue() {
    return pollOnce({
      client: this.sqs.client,
      queueUrl: this.intakeQueue.queueUrl,
      parse: parseIntakeMessage,
      handler: async (message, receiveCount) =>
        (await processIntakeMessage(message, receiveCount, this.services)).work,
    });
  }

  async close(): Promise<void> {
    await this.sandbox.close();
    await Promise.all([
      this.sqs.close(),
      this.dynamo.close(),
      this.secretsManager.close(),
      this.eventBridge.close(),
    ]);
  }
}
