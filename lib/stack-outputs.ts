// The CloudFormation outputs of the two stacks, named by the Lambda variable each one stands for: `cdk deploy
// --outputs-file` writes them, and the ops CLI (`npx billing --outputs <file>`) reads them back into the same
// environment local mode gives it. No CDK import here: the CLI loads this file.

/** Stateful stack outputs (logical id → variable). */
export const STATEFUL_OUTPUTS = {
  Region: "AWS_REGION",
  TableName: "TABLE_NAME",
  ChargeQueueUrl: "CHARGE_QUEUE_URL",
  ChargeDeadLetterQueueUrl: "CHARGE_DLQ_URL",
  IntakeQueueUrl: "INTAKE_QUEUE_URL",
  IntakeDeadLetterQueueUrl: "INTAKE_DLQ_URL",
  WebhookQueueUrl: "WEBHOOK_QUEUE_URL",
  WebhookDeadLetterQueueUrl: "WEBHOOK_DLQ_URL",
  GatewaySecretArn: "GATEWAY_SECRET_ARN",
  WebhookSecretsArn: "WEBHOOK_SECRETS_ARN",
  PartnerTokenSecretArn: "PARTNER_TOKEN_SECRET_ARN",
  MerchantApiKeyHashSecretArn: "MERCHANT_API_KEY_HASH_SECRET_ARN",
  PageLinkSecretArn: "PAGE_LINK_SECRET_ARN",
} as const;

/** Service stack outputs (logical id → variable); the API URL is no Lambda variable, the CLI keeps it apart. */
export const SERVICE_OUTPUTS = {
  ApiUrl: "API_URL",
  PagesUrl: "PUBLIC_PAGES_BASE_URL",
  /** Where the gateway reaches our webhooks: billing:publicWebhookBaseUrl, or ApiUrl + /webhooks. */
  WebhookBaseUrl: "PUBLIC_WEBHOOK_BASE_URL",
  PaymentBaseUrl: "PAYMENT_BASE_URL",
  WebhookAdminBaseUrl: "WEBHOOK_ADMIN_BASE_URL",
  PartnerBaseUrl: "PARTNER_BASE_URL",
  RunChargesFunctionName: "RUN_CHARGES_FUNCTION_NAME",
  ReconcileLedgerFunctionName: "RECONCILE_LEDGER_FUNCTION_NAME",
  ReplayEventsFunctionName: "REPLAY_EVENTS_FUNCTION_NAME",
} as const;

/**
 * The functions the ops CLI invokes instead of doing their work on the operator's machine (they change state at
 * scale or need the gateway's secrets): handler → the output that names the deployed function.
 */
export const INVOKED_FUNCTIONS = {
  "run-charges": "RunChargesFunctionName",
  "reconcile-ledger": "ReconcileLedgerFunctionName",
  "replay-events": "ReplayEventsFunctionName",
} as const satisfies Record<string, keyof typeof SERVICE_OUTPUTS>;
export type InvokedFunction = keyof typeof INVOKED_FUNCTIONS;

export const isInvokedFunction = (handler: string): handler is InvokedFunction =>
  handler in INVOKED_FUNCTIONS;

/** The variable that names an invoked function in the CLI's environment. */
export const functionNameVariable = (handler: InvokedFunction) => SERVICE_OUTPUTS[INVOKED_FUNCTIONS[handler]];

export type StackOutputId = keyof typeof STATEFUL_OUTPUTS | keyof typeof SERVICE_OUTPUTS;

export const STACK_OUTPUT_VARIABLES: Readonly<Record<StackOutputId, string>> = {
  ...STATEFUL_OUTPUTS,
  ...SERVICE_OUTPUTS,
};
