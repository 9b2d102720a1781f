import { describe, expect, it } from "vitest";
import { bundleHandler } from "../../bench/handler-bundle";
import type { ComponentName } from "../../functions/composition/service-set";
import { BILLING_FUNCTIONS, type FunctionName } from "../../functions/function-table";

// Each function's bundle holds only its own service set's components: the AWS SDK clients it requires are exactly
// those its components talk to. A component list that grows, or a module-scope call that esbuild cannot drop, shows
// here as an SDK client the function never uses (loaded on every cold start) or one it lacks.

const DYNAMODB = "@aws-sdk/client-dynamodb";
const SQS = "@aws-sdk/client-sqs";
const SECRETS_MANAGER = "@aws-sdk/client-secrets-manager";
const EVENTBRIDGE = "@aws-sdk/client-eventbridge";
const SES = "@aws-sdk/client-sesv2";
const S3 = "@aws-sdk/client-s3";

const COMPONENT_CLIENTS: Record<ComponentName, readonly string[]> = {
  clock: [],
  ids: [],
  repository: [DYNAMODB],
  readRepository: [DYNAMODB],
  ledger: [DYNAMODB],
  idempotency: [DYNAMODB],
  chargeQueue: [SQS],
  chargeQueueConsumer: [SQS],
  intakeQueue: [SQS],
  intakeQueueConsumer: [SQS],
  events: [EVENTBRIDGE],
  gateway: [SECRETS_MANAGER],
  gatewayTransactions: [SECRETS_MANAGER],
  gatewaySettlements: [SECRETS_MANAGER],
  partnerWebhooks: [SECRETS_MANAGER],
  partnerTokenRefresher: [SECRETS_MANAGER],
  webhookUrls: [],
  policy: [],
  webhookSecrets: [SECRETS_MANAGER],
  apiKeyDigests: [SECRETS_MANAGER],
  pages: [SECRETS_MANAGER],
  portal: [],
  mail: [SECRETS_MANAGER, SES],
  documentFiles: [S3],
  reminderIndex: [DYNAMODB],
  priceStore: [DYNAMODB],
  priceStoreReader: [DYNAMODB],
  couponStore: [DYNAMODB],
  couponStoreReader: [DYNAMODB],
  webhookStore: [DYNAMODB],
  webhookStoreReader: [DYNAMODB],
  webhookQueue: [SQS],
  webhookQueueConsumer: [SQS],
  webhookTransport: [],
};

async function sdkClientsOf(handler: FunctionName): Promise<string[]> {
  const { sdkPackages } = await bundleHandler(handler);
  return sdkPackages.filter((name) => name.startsWith("@aws-sdk/client-"));
}

describe("handler bundles", () => {
  it.each(BILLING_FUNCTIONS.map((spec) => [spec.name, spec] as const))(
    "%s requires the SDK clients of its service set's components, and no other",
    async (handler, spec) => {
      const expected = [
        ...new Set(spec.services.components.flatMap((name) => COMPONENT_CLIENTS[name])),
      ].sort();
      expect(await sdkClientsOf(handler)).toEqual(expected);
    },
  );
});
