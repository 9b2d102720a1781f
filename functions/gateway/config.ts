import * as z from "zod";
import { AES_KEY_FORMS, aesKeyBytes, DEFAULT_AES_IV } from "./card-crypto";

export const gatewayConfigSchema = z.object({
  /** Payment and reconciliation APIs ({base_url}). */
  paymentBaseUrl: z.url(),
  /** Webhook management API ({webhook_admin_url}). */
  webhookAdminBaseUrl: z.url(),
  /** Partner API ({partner_url}). */
  partnerBaseUrl: z.url(),
  mid: z.string().min(1).max(10),
  apiKey: z.string().min(1),
  /** The merchant's 32-byte AES key: 64 hex characters, or a 32-character key used as its bytes. */
  aesKey: z.string().refine((key) => aesKeyBytes(key) !== undefined, AES_KEY_FORMS),
  aesIv: z.string().length(16).default(DEFAULT_AES_IV),
  /** Partner API key, exchanged for the 24 h access token. */
  partnerApiKey: z.string().min(1).optional(),
  /** Partner-side merchant identifier used in partner paths; defaults to mid. */
  partnerMerchantId: z.string().min(1).optional(),
  /**
   * Where a stored token is re-billed: the real gateway's token payment (POST /tokenbilling/{token_id}/rebill), or
   * the seed's non-ui payment with tokenbilling.token_id, for a gateway that follows the seed.
   */
  rebillEndpoint: z.enum(["tokenbilling", "payment"]).default("tokenbilling"),
  timeoutMs: z.number().int().positive().default(10_000),
  /** Retries of safe reads after the first try. */
  readRetries: z.number().int().min(0).max(10).default(2),
  readRetryMinDelayMs: z.number().int().min(0).default(200),
});

export type GatewayConfigInput = z.input<typeof gatewayConfigSchema>;
export type RebillEndpoint = z.output<typeof gatewayConfigSchema>["rebillEndpoint"];
export type GatewayConfig = z.output<typeof gatewayConfigSchema>;
