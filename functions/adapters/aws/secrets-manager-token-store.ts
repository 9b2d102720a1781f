import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import type { PartnerToken, PartnerTokenStore } from "../../gateway/partner-token";
import { partnerToken } from "../../gateway/schemas/partner";

export interface SecretsManagerTokenStoreOptions {
  readonly client: SecretsManagerClient;
  /** ARN (or name) of the secret holding {token, expiredAt}. */
  readonly secretId: string;
  /** How long a read is reused before Secrets Manager is asked again (default 60 s); 0 reads every time. */
  readonly cacheMs?: number;
  /** Milliseconds since the epoch, for the cache only (default Date.now). */
  readonly now?: () => number;
}

/**
 * The partner access token in Secrets Manager, shared by every function: the scheduled refresher writes it, partner
 * API callers read it (cached briefly, so a burst of calls costs one GetSecretValue). A secret without a value, or
 * with anything but a token (the placeholder a deployment creates), reads as no token: the next refresh replaces it.
 */
export function createSecretsManagerTokenStore(options: SecretsManagerTokenStoreOptions): PartnerTokenStore {
  const { client, secretId, cacheMs = 60_000, now = Date.now } = options;
  let cached: { readonly token: PartnerToken | undefined; readonly readAt: number } | undefined;

  const read = async (): Promise<PartnerToken | undefined> => {
    try {
      const reply = await client.send(new GetSecretValueCommand({ SecretId: secretId }));
      return parseToken(reply.SecretString);
    } catch (error) {
      if (error instanceof ResourceNotFoundException) return undefined;
      throw error;
    }
  };

  return {
    async get() {
      if (cached !== undefined && now() - cached.readAt < cacheMs) return cached.token;
      const token = await read();
      cached = { token, readAt: now() };
      return token;
    },
    async put(token) {
      await client.send(
        new PutSecretValueCommand({ SecretId: secretId, SecretString: JSON.stringify(token) }),
      );
      cached = { token, readAt: now() };
    },
  };
}

function parseToken(text: string | undefined): PartnerToken | undefined {
  if (text === undefined || text.trim() === "") return undefined;
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch {
    return undefined;
  }
  const parsed = partnerToken.safeParse(json, { reportInput: false });
  return parsed.success ? parsed.data : undefined;
}
