import { RetentionDays } from "aws-cdk-lib/aws-logs";
import { z } from "zod";
import type { ScheduleName } from "../functions/function-table";
import { gatewayConfigSchema, type RebillEndpoint } from "../functions/gateway/config";
import { declineCodesSchema } from "../functions/gateway/decline-codes";
import {
  chargePolicyOverridesSchema,
  type MailSettings,
  mailSettingsSchema,
} from "../functions/lambda/environment";
import { type PortalAction, portalActionsSchema } from "../functions/pages/portal/portal-page";

/**
 * Deployment settings, read from CDK context (cdk.json "context", ~/.cdk.json or `-c key=value`). Every key is
 * prefixed `billing:`; a `-c` value arrives as a string, so numbers are coerced and the charge policy may be JSON text.
 *
 * The gateway URLs have no real default: they differ per merchant contract and environment, and a sandbox URL in a
 * production deployment would be a silent misconfiguration. Unset, they fall back to PLACEHOLDER_GATEWAY_URLS on the
 * reserved `.invalid` domain (RFC 6761, never resolves) so that `npm run synth` works offline; the service stack
 * then warns at synth and carries a CloudFormation rule that refuses the deployment.
 */
export const PLACEHOLDER_GATEWAY_URLS = {
  paymentBaseUrl: "https://payment.gateway.invalid",
  webhookAdminBaseUrl: "https://webhook-admin.gateway.invalid",
  partnerBaseUrl: "https://partner.gateway.invalid",
} as const;

export type GatewayUrls = { readonly [K in keyof typeof PLACEHOLDER_GATEWAY_URLS]: string };

const httpsUrl = z.url({ protocol: /^https$/, error: "must be an https:// URL" });

/** rate(1 hour), rate(5 minutes) or cron(…): what EventBridge Scheduler accepts for a recurring schedule. */
const scheduleExpression = z
  .string()
  .regex(
    /^(rate\((1 (minute|hour|day)|([2-9]|[1-9]\d+) (minutes|hours|days))\)|cron\(\S+( \S+){5}\))$/,
    'must be "rate(N unit)" (1 hour, 5 minutes, …) or "cron(min hour day month weekday year)"',
  );

/** A JSON object given in cdk.json, or as its text with `-c`. */
const jsonObjectText = <S extends z.ZodType>(schema: S) =>
  z.preprocess((value) => {
    if (typeof value !== "string") return value;
    try {
      return JSON.parse(value);
    } catch {
      return value;
    }
  }, schema);

const declineCodesOverrides = declineCodesSchema.partial();

/** CloudWatch Logs accepts a fixed set of retention periods (9999: never expire). */
const retentionDays = z.coerce.number().pipe(
  z.enum(RetentionDays, {
    error: `must be one of ${Object.values(RetentionDays).filter(Number.isInteger).join(", ")} (days)`,
  }),
);

const contextSchema = z.object({
  "billing:paymentBaseUrl": httpsUrl.optional(),
  "billing:webhookAdminBaseUrl": httpsUrl.optional(),
  "billing:partnerBaseUrl": httpsUrl.optional(),
  /** Where the gateway reaches our webhooks; default: the HTTP API's own URL + /webhooks. */
  "billing:publicWebhookBaseUrl": httpsUrl.optional(),
  /** Where customers reach our pages (hosted checkout, portal); default: the pages' HTTP API's own URL. */
  "billing:publicPagesBaseUrl": httpsUrl.optional(),
  /** The merchant's name, shown on our pages. */
  "billing:merchantName": z.string().min(1).max(100).optional(),
  /** The actions the customer portal offers (JSON array of update_card, retry_payment, cancel, resume); all by default. */
  "billing:portalActions": jsonObjectText(portalActionsSchema).optional(),
  "billing:chargeRunSchedule": scheduleExpression.default("rate(1 hour)"),
  "billing:attemptSweepSchedule": scheduleExpression.default("rate(5 minutes)"),
  "billing:outboxSweepSchedule": scheduleExpression.default("rate(5 minutes)"),
  "billing:partnerTokenSchedule": scheduleExpression.default("rate(6 hours)"),
  "billing:reconciliationSchedule": scheduleExpression.default("cron(30 3 * * ? *)"),
  "billing:partnerWebhookSchedule": scheduleExpression.default("rate(1 day)"),
  /** The date-driven customer mails (trial ending, renewal ahead, card expiring): daily, in the morning UTC. */
  "billing:remindersSchedule": scheduleExpression.default("cron(0 9 * * ? *)"),
  /** measure-revenue: each currency's MRR and paying subscriptions for the dashboard, daily at midnight UTC. */
  "billing:revenueSchedule": scheduleExpression.default("cron(5 0 * * ? *)"),
  /**
   * The customer mails: sender (an SES-verified identity), reply-to, support address, which mails, renewal notice
   * days, configuration set; passed as MAIL_SETTINGS. Unset: no mail is sent.
   */
  "billing:mail": jsonObjectText(mailSettingsSchema).optional(),
  /**
   * Where stored tokens are re-billed: "tokenbilling" (the real gateway's token payment, the default) or "payment"
   * (the seed's non-ui payment with tokenbilling.token_id), passed as GATEWAY_REBILL_ENDPOINT.
   */
  "billing:gatewayRebillEndpoint": gatewayConfigSchema.shape.rebillEndpoint.unwrap().optional(),
  /**
   * Overrides of the gateway's refusals that no retry can mend (tokenExpiredCodes, tokenRevokedCodes,
   * deadCardErrcodes, deadCardRescodes), passed as GATEWAY_DECLINE_CODES.
   */
  "billing:gatewayDeclineCodes": jsonObjectText(declineCodesOverrides).optional(),
  /** Your page of what you sell: the link of each charge's product line at the gateway, passed as GATEWAY_PRODUCT_LINK. */
  "billing:productLink": z.url({ protocol: /^https$/, error: "must be an https URL" }).optional(),
  /** Prefix of the gateway's webhook headers (`<prefix>-webhook-signature`); the handler's default when unset. */
  "billing:webhookHeaderPrefix": z
    .string()
    .regex(/^[A-Za-z0-9-]{1,40}$/, "must be 1 to 40 letters, digits or hyphens")
    .optional(),
  /** Overrides of the charge policy (dunning schedule in days, retry backoff …), passed as CHARGE_POLICY. */
  "billing:chargePolicy": jsonObjectText(chargePolicyOverridesSchema).optional(),
  "billing:alarmEmail": z.email({ error: "must be an e-mail address" }).optional(),
  "billing:logRetentionDays": retentionDays.default(RetentionDays.THREE_MONTHS),
  "billing:declineRateAlarmPercent": z.coerce.number().gt(0).max(100).default(20),
  "billing:apiRateLimit": z.coerce.number().int().positive().default(50),
  "billing:apiBurstLimit": z.coerce.number().int().positive().default(100),
  /** Our pages' own throttle: a burst of customers never takes the merchant API's share (or the reverse). */
  "billing:pagesRateLimit": z.coerce.number().int().positive().default(20),
  "billing:pagesBurstLimit": z.coerce.number().int().positive().default(40),
});

export const CONTEXT_KEYS: readonly string[] = Object.keys(contextSchema.shape);

export type { ScheduleName };

export interface BillingConfig {
  readonly gatewayUrls: GatewayUrls;
  /** Context keys of the gateway URLs left unset (their placeholders are in gatewayUrls). */
  readonly unsetGatewayUrlKeys: readonly string[];
  readonly publicWebhookBaseUrl?: string;
  readonly publicPagesBaseUrl?: string;
  readonly merchantName?: string;
  readonly portalActions?: readonly PortalAction[];
  readonly schedules: { readonly [name in ScheduleName]: string };
  readonly gatewayRebillEndpoint?: RebillEndpoint;
  readonly gatewayDeclineCodes?: z.output<typeof declineCodesOverrides>;
  readonly productLink?: string;
  readonly webhookHeaderPrefix?: string;
  readonly chargePolicy?: z.output<typeof chargePolicyOverridesSchema>;
  readonly mail?: MailSettings;
  readonly alarmEmail?: string;
  readonly logRetention: RetentionDays;
  readonly declineRateAlarmPercent: number;
  readonly api: { readonly rateLimit: number; readonly burstLimit: number };
  readonly pages: { readonly rateLimit: number; readonly burstLimit: number };
}

/** A context value is invalid: names every key at fault and why, never the value. */
export class BillingConfigError extends Error {
  override readonly name = "BillingConfigError";
  constructor(readonly problems: readonly string[]) {
    super(
      `invalid CDK context (set it in cdk.json "context" or with -c key=value):\n  ${problems.join("\n  ")}`,
    );
  }
}

/** Reads and checks every `billing:` context key; `context` is usually `(key) => app.node.tryGetContext(key)`. */
export function readBillingConfig(context: (key: string) => unknown): BillingConfig {
  const raw = Object.fromEntries(CONTEXT_KEYS.map((key) => [key, context(key)]));
  const parsed = contextSchema.safeParse(raw, { reportInput: false });
  if (!parsed.success) {
    throw new BillingConfigError(
      parsed.error.issues.map((issue) => `${issue.path.map(String).join(".")}: ${issue.message}`),
    );
  }
  const c = parsed.data;
  const given = {
    paymentBaseUrl: c["billing:paymentBaseUrl"],
    webhookAdminBaseUrl: c["billing:webhookAdminBaseUrl"],
    partnerBaseUrl: c["billing:partnerBaseUrl"],
  };
  return {
    gatewayUrls: {
      paymentBaseUrl: given.paymentBaseUrl ?? PLACEHOLDER_GATEWAY_URLS.paymentBaseUrl,
      webhookAdminBaseUrl: given.webhookAdminBaseUrl ?? PLACEHOLDER_GATEWAY_URLS.webhookAdminBaseUrl,
      partnerBaseUrl: given.partnerBaseUrl ?? PLACEHOLDER_GATEWAY_URLS.partnerBaseUrl,
    },
    unsetGatewayUrlKeys: Object.entries(given)
      .filter(([, url]) => url === undefined)
      .map(([name]) => `billing:${name}`),
    publicWebhookBaseUrl: c["billing:publicWebhookBaseUrl"],
    publicPagesBaseUrl: c["billing:publicPagesBaseUrl"],
    merchantName: c["billing:merchantName"],
    portalActions: c["billing:portalActions"],
    schedules: {
      chargeRun: c["billing:chargeRunSchedule"],
      attemptSweep: c["billing:attemptSweepSchedule"],
      outboxSweep: c["billing:outboxSweepSchedule"],
      partnerToken: c["billing:partnerTokenSchedule"],
      reconciliation: c["billing:reconciliationSchedule"],
      partnerWebhook: c["billing:partnerWebhookSchedule"],
      reminders: c["billing:remindersSchedule"],
      revenue: c["billing:revenueSchedule"],
    },
    gatewayRebillEndpoint: c["billing:gatewayRebillEndpoint"],
    gatewayDeclineCodes: c["billing:gatewayDeclineCodes"],
    productLink: c["billing:productLink"],
    webhookHeaderPrefix: c["billing:webhookHeaderPrefix"],
    chargePolicy: c["billing:chargePolicy"],
    mail: c["billing:mail"],
    alarmEmail: c["billing:alarmEmail"],
    logRetention: c["billing:logRetentionDays"],
    declineRateAlarmPercent: c["billing:declineRateAlarmPercent"],
    api: { rateLimit: c["billing:apiRateLimit"], burstLimit: c["billing:apiBurstLimit"] },
    pages: { rateLimit: c["billing:pagesRateLimit"], burstLimit: c["billing:pagesBurstLimit"] },
  };
}
