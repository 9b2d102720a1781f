import * as z from "zod";

/** The IV the gateway documents for card-field encryption: 16 ASCII bytes. */
export const DEFAULT_AES_IV = "Eximbay_AES_256_";

export const gatewayConfigSchema = z.object({
  /** Payment and reconciliation APIs ({base_url}). */
  paymentBaseUrl: z.url(),
  /** Webhook management API ({webhook_admin_url}). */
  webhookAdminBaseUrl: z.url(),
  /** Partner API ({partner_url}). */
  partnerBaseUrl: z.url(),
  mid: z.string().min(1).max(10),
  apiKey: z.string().min(1),
  /** The merchant's 32-byte AES key, as 64 hex characters. */
  aesKeyHex: z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters"),
  aesIv: z.string().length(16).default(DEFAULT_AES_IV),
  /** Partner API key, exchanged for the 24 h access token. */
  partnerApiKey: z.string().min(1).optional(),
  /** Partner-side merchant identifier used in partner paths; defaults to mid. */
  partnerMerchantId: z.string().min(1).optional(),
  timeoutMs: z.number().int().positive().default(10_000),
  /** Retries of safe reads after the first try. */
  readRetries: z.number().int().min(0).max(10).default(2),
  readRetryMinDelayMs: z.number().int().min(0).default(200),
});

export type GatewayConfigInput = z.input<typeof gatewayConfigSchema>;
export type GatewayConfig = z.output<typeof gatewayConfigSchema>;
