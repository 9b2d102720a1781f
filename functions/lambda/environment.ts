import * as z from "zod";
import { invoicingPolicySchema } from "../core/base/documents";
import { isCurrencyCode } from "../core/base/money";
import { MAIL_TEMPLATES } from "../core/ports/mailer";
import { gatewayConfigSchema } from "../gateway/config";
import { declineCodesSchema } from "../gateway/decline-codes";
import { portalActionsSchema } from "../pages/portal/portal-page";
import { lazySchema } from "../shared/lazy-schema";
import { issueText } from "../shared/zod-fields";

/** Most seconds SQS lets a message wait (ChangeMessageVisibility), and so the longest retry backoff. */
const MAX_QUEUE_DELAY_SECONDS = 900;

/** A claimed attempt is left alone this long; it must outlive any gateway call (timeout plus retries). */
const MIN_INFLIGHT_WINDOW_MS = 60_000;

/** CHARGE_POLICY: a JSON object overriding some of DEFAULT_CHARGE_POLICY; unknown keys are refused (typos). */
export const chargePolicyOverridesSchema = lazySchema(() =>
  z
    .strictObject({
      currencies: z.array(z.string().refine(isCurrencyCode, "must be ISO 4217 currency codes")).min(1),
      inflightWindowMs: z.number().int().min(MIN_INFLIGHT_WINDOW_MS),
      dunningScheduleDays: z.array(z.number().int().positive()).max(12),
      dunningFinalAction: z.enum(["cancel", "past_due"]),
      retryBaseSeconds: z.number().int().positive().max(MAX_QUEUE_DELAY_SECONDS),
      retryMaxSeconds: z.number().int().positive().max(MAX_QUEUE_DELAY_SECONDS),
      /** Some of DEFAULT_INVOICING_POLICY's fields (seller, tax rates, prefixes, time zone). */
      invoicing: invoicingPolicySchema.partial(),
    })
    .partial()
    .refine(
      ({ retryBaseSeconds = 0, retryMaxSeconds = MAX_QUEUE_DELAY_SECONDS }) =>
        retryBaseSeconds <= retryMaxSeconds,
      { error: "retryBaseSeconds must not exceed retryMaxSeconds", path: ["retryBaseSeconds"] },
    ),
);

const jsonText = lazySchema(() =>
  z.string().transform((text, context): unknown => {
    try {
      return JSON.parse(text);
    } catch {
      context.addIssue({ code: "custom", message: "must be JSON" });
      return z.NEVER;
    }
  }),
);

const required = lazySchema(() => z.string().min(1, "must not be empty"));
/** Secrets are named by ARN on AWS; the local Secrets Manager stand-in also takes a plain name. */
const secretId = required;

/**
 * Every variable a handler may read. Only identifiers and URLs live here: secrets are fetched by ARN. Each component
 * of the composition picks the ones it reads (functions/composition/components.ts); a function's list, which its CDK
 * function must set, follows from its service set.
 */
export const environmentSchema = lazySchema(() =>
  z.object({
    /** The single billing table. */
    TABLE_NAME: required,
    CHARGE_QUEUE_URL: z.url(),
    EVENT_BUS_NAME: required,
    /** JSON secret {mid, apiKey, aesKey, aesIv?, partnerApiKey?, partnerMerchantId?}. */
    GATEWAY_SECRET_ARN: secretId,
    /** JSON secret {token, expiredAt} written by the partner-token refresher, read by every partner API caller. */
    PARTNER_TOKEN_SECRET_ARN: secretId,
    PAYMENT_BASE_URL: z.url(),
    WEBHOOK_ADMIN_BASE_URL: z.url(),
    PARTNER_BASE_URL: z.url(),
    /** Public base of our webhook routes (the recurring_noti_url given to the gateway is built from it). */
    PUBLIC_WEBHOOK_BASE_URL: z.url(),
    CHARGE_POLICY: jsonText.pipe(chargePolicyOverridesSchema).optional(),
    /** "tokenbilling" (default: the real gateway's token payment) or "payment" (the seed's form of REBILL). */
    GATEWAY_REBILL_ENDPOINT: gatewayConfigSchema.shape.rebillEndpoint.unwrap().optional(),
    /** JSON object overriding some of the gateway's DEFAULT_DECLINE_CODES (the refusals no retry can mend). */
    GATEWAY_DECLINE_CODES: jsonText.pipe(declineCodesSchema.partial()).optional(),
    /** The merchant's page of what it sells: the link of each charge's product line (none sent when unset). */
    GATEWAY_PRODUCT_LINK: z.url({ protocol: /^https?$/ }).optional(),
  }),
);

export type Environment = z.output<typeof environmentSchema>;

/** The variables a handler reads, for the CDK function that runs it. */
export function variablesOf(schema: z.ZodObject): string[] {
  return Object.keys(schema.shape);
}

/** A variable is missing or invalid: names each one, never a value. */
export class EnvironmentError extends Error {
  override readonly name = "EnvironmentError";
  constructor(readonly problems: readonly string[]) {
    super(`invalid Lambda environment: ${problems.join("; ")}`);
  }
}

/** Parses the handler's variables (first invocation of a container); throws EnvironmentError listing every problem. */
export function loadEnvironment<S extends z.ZodObject>(
  schema: S,
  env: Readonly<Record<string, string | undefined>> = process.env,
): z.output<S> {
  const result = schema.safeParse(env, { reportInput: false });
  if (result.success) return result.data;
  throw new EnvironmentError(
    result.error.issues.map((issue) => {
      const name = String(issue.path[0]);
      return env[name] === undefined ? `${name} is not set` : issueText(issue);
    }),
  );
}

/** Variables of the webhook intake and its processor. */
export const intakeVariablesSchema = lazySchema(() =>
  z.object({
    /** The queue between the webhook receivers (acknowledge fast) and process-intake. */
    INTAKE_QUEUE_URL: z.url(),
    /** JSON secret {current, next?}: the gateway webhook secret, and its successor during a rotation. */
    WEBHOOK_SECRETS_ARN: secretId,
    /** Preferred prefix of the gateway's webhook headers (`<prefix>-webhook-signature`); "eximbay" when unset. */
    WEBHOOK_HEADER_PREFIX: z
      .string()
      .regex(/^[A-Za-z0-9-]{1,40}$/, "must be letters, digits and hyphens")
      .optional(),
  }),
);

/** Our pages (hosted checkout, customer portal) and the links that open them. */
export const pageVariablesSchema = lazySchema(() =>
  z.object({
    /** JSON secret {current, next?}: the HMAC key our page links are signed with (and its successor in a rotation). */
    PAGE_LINK_SECRET_ARN: secretId,
    /** Public base of our pages (`<base>/pay/…`, `<base>/portal/…`). */
    PUBLIC_PAGES_BASE_URL: z.url(),
    /** The merchant's name, shown on the pages. */
    MERCHANT_NAME: z.string().min(1).max(100).optional(),
  }),
);

/** MAIL_SETTINGS: the merchant's mails to customers (README, Customer e-mails); unknown keys are refused (typos). */
export const mailSettingsSchema = lazySchema(() =>
  z.strictObject({
    /** The sender: an address (or "Name <address>") of an identity verified in SES. */
    from: z.string().min(3).max(320),
    reply_to: z.email().optional(),
    /** Where customers write with questions, named in every mail; reply_to when unset. */
    support_email: z.email().optional(),
    /** Which mails are sent; every one but renewal_upcoming when unset. */
    templates: z.array(z.enum(MAIL_TEMPLATES)).optional(),
    /** renewal_upcoming goes this many days before a renewal. */
    renewal_notice_days: z.number().int().min(1).max(60).optional(),
    /** An SES configuration set (its event destinations see bounces and complaints). */
    configuration_set: z.string().min(1).max(64).optional(),
  }),
);
export type MailSettings = z.infer<typeof mailSettingsSchema>;

/** The mails' variables: their settings (no mail is sent without them) and the pages their links open. */
export const mailVariablesSchema = lazySchema(() =>
  pageVariablesSchema.extend({
    MAIL_SETTINGS: jsonText.pipe(mailSettingsSchema).optional(),
  }),
);

/** Our webhooks to the SaaS: their delivery queue and the URL rules. */
export const webhookVariablesSchema = lazySchema(() =>
  z.object({
    /** One message per event and endpoint, consumed by send-webhooks. */
    WEBHOOK_QUEUE_URL: z.url(),
    /**
     * "local" (local mode only): endpoints may be http and resolve to any address. Unset on AWS, where only https URLs
     * resolving to public addresses are taken; refused wherever Lambda runs (AWS_LAMBDA_FUNCTION_NAME is set).
     */
    WEBHOOK_URL_POLICY: z.enum(["public", "local"]).optional(),
    /** Set by Lambda itself in every function: the URL policy cannot be relaxed there. */
    AWS_LAMBDA_FUNCTION_NAME: z.string().optional(),
  }),
);

/** The customer portal's settings. */
export const portalVariablesSchema = lazySchema(() =>
  z.object({
    /** JSON array: the actions the portal offers (update_card, retry_payment, cancel, resume); all when unset. */
    PORTAL_ACTIONS: jsonText.pipe(portalActionsSchema).optional(),
  }),
);

/** The typefaces documents are set in (Noto Sans KR, from @embedpdf/fonts-kr): their files in DOCUMENT_FONT_DIR. */
export const DOCUMENT_FONT_FILES = {
  regular: "NotoSansKR-Regular.otf",
  bold: "NotoSansKR-Bold.otf",
} as const;

/** Where documents' PDFs are kept and the typefaces they are set in. */
export const documentVariablesSchema = lazySchema(() =>
  z.object({
    /** The private bucket of rendered documents (lib/stateful-stack.ts). */
    DOCUMENT_BUCKET_NAME: z.string().min(3).max(63),
    /** A folder holding DOCUMENT_FONT_FILES (on AWS, the fonts layer's /opt). */
    DOCUMENT_FONT_DIR: z.string().min(1),
  }),
);

/**
 * The merchant API's Lambda authorizer. Kept apart from environmentSchema (no other function reads it): the secret
 * holding the SHA-256 digests of the merchant API keys.
 */
export const authorizerEnvironment = lazySchema(() =>
  z.object({ MERCHANT_API_KEY_HASH_SECRET_ARN: secretId }),
);
