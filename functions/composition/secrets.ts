import { TransformParameterError } from "@aws-lambda-powertools/parameters";
import * as z from "zod";
import type { SdkClientHost } from "../adapters/aws/sdk-clients";
import { secretsProviderOf } from "../adapters/aws/secrets-manager-client";
import { apiKeyHashesSecretSchema } from "../api/api-key";
import { gatewayConfigSchema } from "../gateway/config";
import { basicAuthorization } from "../gateway/context";
import { withAliases } from "../gateway/schemas/primitives";
import { registerSecretValues } from "../lambda/redaction";
import { lazySchema } from "../shared/lazy-schema";
import { issueText } from "../shared/zod-fields";

// The secrets the functions read (by ARN; only the ARN is in the environment), each checked by its schema, cached
// by Powertools for a few minutes (a rotation shows within that), and registered with the log redactor. No error
// quotes a secret's text.

/** How long a fetched secret is reused: a rotation shows within this. */
export const SECRET_MAX_AGE_SECONDS = 300;

/**
 * The merchant's gateway credentials, kept in one JSON secret; the URLs come from the environment. The AES key is
 * `aesKey` (64 hex characters or a 32-character key); `aesKeyHex`, its earlier name, is read too.
 */
export const gatewaySecretSchema = lazySchema(() =>
  withAliases(
    { aesKeyHex: "aesKey" },
    gatewayConfigSchema.pick({
      mid: true,
      apiKey: true,
      aesKey: true,
      aesIv: true,
      partnerApiKey: true,
      partnerMerchantId: true,
    }),
  ),
);

/** A key that rotates: the current one and, during a rotation, the next (both accepted). */
export const rotatingSecretSchema = lazySchema(() =>
  z.object({
    current: z.string().min(1),
    next: z.string().min(1).optional(),
  }),
);

function readJsonSecret(runtime: SdkClientHost, secretId: string): Promise<unknown> {
  return secretsProviderOf(runtime).get(secretId, { transform: "json", maxAge: SECRET_MAX_AGE_SECONDS });
}

/** A secret read as JSON; the transform error, which quotes the text it could not parse, becomes `is not JSON`. */
async function readCheckedSecret(runtime: SdkClientHost, secretId: string, what: string): Promise<unknown> {
  try {
    return await readJsonSecret(runtime, secretId);
  } catch (error) {
    if (error instanceof TransformParameterError) throw new Error(`${what} ${secretId} is not JSON`);
    throw error;
  }
}

/** The merchant's gateway credentials, checked; they are registered so that no log line can carry them. */
export async function readGatewaySecret(runtime: SdkClientHost, secretId: string) {
  const parsed = gatewaySecretSchema.safeParse(await readCheckedSecret(runtime, secretId, "gateway secret"), {
    reportInput: false,
  });
  if (parsed.success) {
    const { apiKey, aesKey, partnerApiKey } = parsed.data;
    registerSecretValues([apiKey, basicAuthorization(apiKey).slice("Basic ".length), aesKey, partnerApiKey]);
    return parsed.data;
  }
  const fields = parsed.error.issues.map(issueText);
  throw new Error(`gateway secret ${secretId} is invalid: ${fields.join("; ")}`);
}

/** Every accepted key of a rotating secret {current, next?}: the current one first. */
async function readRotatingSecret(
  runtime: SdkClientHost,
  secretId: string,
  what: string,
): Promise<readonly string[]> {
  const parsed = rotatingSecretSchema.safeParse(await readCheckedSecret(runtime, secretId, what), {
    reportInput: false,
  });
  if (!parsed.success) throw new Error(`${what} ${secretId} must be {current, next?}`);
  const secrets = [parsed.data.current, ...(parsed.data.next === undefined ? [] : [parsed.data.next])];
  registerSecretValues(secrets);
  return secrets;
}

/** Every accepted webhook secret: the current one and, during a rotation, the next. */
export const readWebhookSecrets = (runtime: SdkClientHost, secretId: string) =>
  readRotatingSecret(runtime, secretId, "webhook secret");

/** The keys our page links are signed with: the current one signs, both verify during a rotation. */
export const readPageLinkKeys = (runtime: SdkClientHost, secretId: string) =>
  readRotatingSecret(runtime, secretId, "page link secret");

/** The SHA-256 digests of the valid merchant API keys. */
export async function readApiKeyDigests(
  runtime: SdkClientHost,
  secretId: string,
): Promise<readonly string[]> {
  const refused = new Error(`API key secret ${secretId} is not {"sha256": [<hex digest>, …]}`);
  const value = await readJsonSecret(runtime, secretId).catch((error: unknown) => {
    throw error instanceof TransformParameterError ? refused : error;
  });
  const parsed = apiKeyHashesSecretSchema.safeParse(value, { reportInput: false });
  if (!parsed.success) throw refused;
  return parsed.data;
}
