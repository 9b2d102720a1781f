import { randomBytes, randomUUID } from "node:crypto";
import { z } from "zod";
import { AwsJsonError, type AwsJsonServer, operation, startAwsJsonServer } from "./aws-json-server";

// Secrets Manager has no emulator on npm. This answers the three calls the billing functions make (and Powertools
// parameters, which calls GetSecretValue) in the service's own JSON 1.1 protocol, so the real SDK runs unchanged.
// Versions are kept minimal: a secret has its latest value only, labelled AWSCURRENT.

const CURRENT = "AWSCURRENT";

interface StoredSecret {
  readonly name: string;
  readonly arn: string;
  readonly createdAt: number;
  value?: { readonly versionId: string; readonly string?: string; readonly binary?: string };
}

export interface SecretsManagerStandIn extends AwsJsonServer {
  /**
   * Replaces a secret's value (by name or ARN) or creates a secret of that name, without the protocol (test and
   * local set-up). Without a value a new secret is created empty (GetSecretValue then fails as on AWS). Returns
   * its ARN.
   */
  setSecret(secretId: string, value?: string): string;
  /** The current SecretString of a secret (by name or ARN), if it has one. */
  secretString(secretId: string): string | undefined;
}

const secretValue = {
  SecretString: z.string().optional(),
  /** Base64, as the SDK sends a blob. */
  SecretBinary: z.string().optional(),
  ClientRequestToken: z.string().min(32).max(64).optional(),
};
const createSecretInput = z.looseObject({ Name: z.string().min(1).max(512), ...secretValue });
const putSecretValueInput = z.looseObject({ SecretId: z.string().min(1), ...secretValue });
const getSecretValueInput = z.looseObject({
  SecretId: z.string().min(1),
  VersionId: z.string().optional(),
  VersionStage: z.string().optional(),
});

type ValueInput = z.output<z.ZodObject<typeof secretValue>>;

function notFound(what = "secret"): AwsJsonError {
  return new AwsJsonError("ResourceNotFoundException", `Secrets Manager can't find the specified ${what}.`);
}

/** Starts the stand-in on 127.0.0.1 and an ephemeral port; its endpoint goes in AWS_ENDPOINT_URL_SECRETS_MANAGER. */
export async function startSecretsManagerStandIn(region = "us-east-1"): Promise<SecretsManagerStandIn> {
  const secrets = new Map<string, StoredSecret>(); // by name
  const find = (secretId: string) =>
    secrets.get(secretId) ?? [...secrets.values()].find((secret) => secret.arn === secretId);

  const create = (name: string): StoredSecret => {
    const suffix = randomBytes(3).toString("hex");
    const secret = {
      name,
      arn: `arn:aws:secretsmanager:${region}:000000000000:secret:${name}-${suffix}`,
      createdAt: Math.floor(Date.now() / 1000),
    };
    secrets.set(name, secret);
    return secret;
  };

  /** Stores a new current value; replaying the current version's token with the same value changes nothing. */
  const store = (secret: StoredSecret, input: ValueInput) => {
    if ((input.SecretString === undefined) === (input.SecretBinary === undefined)) {
      throw new AwsJsonError(
        "InvalidParameterException",
        "give exactly one of SecretString and SecretBinary",
      );
    }
    const value = { string: input.SecretString, binary: input.SecretBinary };
    const current = secret.value;
    if (current !== undefined && current.versionId === input.ClientRequestToken) {
      if (current.string !== value.string || current.binary !== value.binary) {
        throw new AwsJsonError("ResourceExistsException", "this version already exists with another value");
      }
      return current.versionId;
    }
    const versionId = input.ClientRequestToken ?? randomUUID();
    secret.value = { versionId, ...value };
    return versionId;
  };

  const server = await startAwsJsonServer("secretsmanager", {
    CreateSecret: operation(createSecretInput, (input) => {
      if (secrets.has(input.Name)) {
        throw new AwsJsonError("ResourceExistsException", `the secret ${input.Name} already exists.`);
      }
      const secret = create(input.Name);
      const hasValue = input.SecretString !== undefined || input.SecretBinary !== undefined;
      const versionId = hasValue ? store(secret, input) : undefined;
      return { ARN: secret.arn, Name: secret.name, VersionId: versionId };
    }),
    PutSecretValue: operation(putSecretValueInput, (input) => {
      const secret = find(input.SecretId);
      if (secret === undefined) throw notFound();
      const versionId = store(secret, input);
      return { ARN: secret.arn, Name: secret.name, VersionId: versionId, VersionStages: [CURRENT] };
    }),
    GetSecretValue: operation(getSecretValueInput, (input) => {
      const secret = find(input.SecretId);
      if (secret === undefined) throw notFound();
      const value = secret.value;
      const stage = input.VersionStage ?? CURRENT;
      if (
        value === undefined ||
        stage !== CURRENT ||
        (input.VersionId ?? value.versionId) !== value.versionId
      ) {
        throw notFound(`secret value for staging label: ${stage}`);
      }
      return {
        ARN: secret.arn,
        Name: secret.name,
        VersionId: value.versionId,
        SecretString: value.string,
        SecretBinary: value.binary,
        VersionStages: [CURRENT],
        CreatedDate: secret.createdAt,
      };
    }),
  });

  return {
    ...server,
    setSecret(secretId, value) {
      const secret = find(secretId) ?? create(secretId);
      if (value !== undefined) store(secret, { SecretString: value });
      return secret.arn;
    },
    secretString: (secretId) => find(secretId)?.value?.string,
  };
}
