import { z } from "zod";

/** One merchant the sandbox knows: its gateway credentials. */
export const merchantSchema = z.object({
  mid: z.string().min(1, "is required").max(10, "must be at most 10 characters"),
  apiKey: z.string().min(1, "is required"),
  /** The 32-byte AES key of the card fields, as 64 hex characters. */
  aesKeyHex: z.string().regex(/^[0-9a-fA-F]{64}$/, "must be 64 hex characters (a 32-byte AES key)"),
  webhookSecret: z.string().min(1, "is required"),
  partnerApiKey: z.string().min(1, "is required"),
});
export type MerchantInput = z.input<typeof merchantSchema>;
export type Merchant = z.output<typeof merchantSchema>;

/** The default merchant: obviously fake credentials, printed by the CLI, safe to commit. */
export const TEST_MERCHANT: Merchant = Object.freeze({
  mid: "SBXTEST001",
  apiKey: "sandbox_api_key_test_merchant",
  aesKeyHex: "0123456789abcdef".repeat(4),
  webhookSecret: "sandbox_webhook_secret_test_merchant",
  partnerApiKey: "sandbox_partner_api_key_test_merchant",
});

/** Environment variable of each field. */
const ENV_NAMES = {
  mid: "SANDBOX_MID",
  apiKey: "SANDBOX_API_KEY",
  aesKeyHex: "SANDBOX_AES_KEY",
  webhookSecret: "SANDBOX_WEBHOOK_SECRET",
  partnerApiKey: "SANDBOX_PARTNER_API_KEY",
} as const satisfies Record<keyof Merchant, string>;

type Field = keyof typeof ENV_NAMES;
const FIELDS = Object.keys(ENV_NAMES).filter((key): key is Field => key in ENV_NAMES);

/**
 * The merchant described by SANDBOX_* variables, each defaulting to the test merchant's value (an empty variable
 * counts as unset). Throws an Error naming the first invalid variable, never its value.
 */
export function merchantFromEnv(env: Readonly<Record<string, string | undefined>>): Merchant {
  const input: Record<string, string> = {};
  for (const field of FIELDS) input[field] = env[ENV_NAMES[field]] || TEST_MERCHANT[field];
  const result = merchantSchema.safeParse(input, { reportInput: false });
  if (result.success) return result.data;
  const issue = result.error.issues[0];
  const field = FIELDS.find((name) => name === issue?.path[0]);
  const name = field ? ENV_NAMES[field] : "SANDBOX_*";
  throw new Error(`${name} ${issue?.message ?? "is invalid"}`);
}

/** The merchants configured at start, looked up by API key (Basic auth), partner API key and mid. */
export class MerchantRegistry {
  readonly #byMid = new Map<string, Merchant>();
  readonly #byApiKey = new Map<string, Merchant>();
  readonly #byPartnerApiKey = new Map<string, Merchant>();

  constructor(merchants: readonly MerchantInput[]) {
    if (merchants.length === 0) throw new Error("the sandbox needs at least one merchant");
    for (const input of merchants) this.#add(merchantSchema.parse(input, { reportInput: false }));
  }

  #add(merchant: Merchant): void {
    // A shared key would make authentication ambiguous.
    if (this.#byMid.has(merchant.mid)) throw new Error(`duplicate merchant mid ${merchant.mid}`);
    if (this.#byApiKey.has(merchant.apiKey))
      throw new Error(`merchant ${merchant.mid} reuses another's API key`);
    if (this.#byPartnerApiKey.has(merchant.partnerApiKey)) {
      throw new Error(`merchant ${merchant.mid} reuses another's partner API key`);
    }
    this.#byMid.set(merchant.mid, merchant);
    this.#byApiKey.set(merchant.apiKey, merchant);
    this.#byPartnerApiKey.set(merchant.partnerApiKey, merchant);
  }

  byMid(mid: string): Merchant | undefined {
    return this.#byMid.get(mid);
  }

  byApiKey(apiKey: string): Merchant | undefined {
    return this.#byApiKey.get(apiKey);
  }

  byPartnerApiKey(partnerApiKey: string): Merchant | undefined {
    return this.#byPartnerApiKey.get(partnerApiKey);
  }

  list(): readonly Merchant[] {
    return [...this.#byMid.values()];
  }
}
