import { randomBytes } from "node:crypto";
import {
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceNotFoundException,
} from "@aws-sdk/client-secrets-manager";
import type { Command } from "commander";
import { z } from "zod";
import { secretsManagerClientOf } from "../functions/adapters/aws/secrets-manager-client";
import { apiKeyHashesSecretSchema, checkAuthorization, hashApiKey } from "../functions/api/api-key";
import { gatewaySecretSchema } from "../functions/composition/secrets";
import {
  authorizerEnvironment,
  environmentSchema,
  intakeVariablesSchema,
} from "../functions/lambda/environment";
import { fieldOf } from "../functions/shared/zod-fields";
import { CliError, type CommandIo, type CommandRunner, emit } from "./cli-io";
import { type Asked, type InputSource, readInputs } from "./secret-input";
import { resolveTarget, type TargetSession, withTarget } from "./target";

// After the first deploy (README, Deploying to AWS): `billing setup` puts the gateway's credentials (and its webhook
// secret, when given) in their secrets, makes a merchant API key — its SHA-256 appended to the key digests the
// authorizer reads, the key printed once — and prints the URLs to give out. `billing api-keys create` makes another
// key (a rotation: add the new key, move the clients, then remove the old digest by hand). Secrets come from
// environment variables or are asked in the terminal without echo, never from flags; none is ever printed.

/** Where the values come from when not told otherwise: this process's variables and terminal. */
const processInput = (): InputSource => ({
  environment: process.env,
  terminal: process.stdin,
  prompts: process.stderr,
});

const GATEWAY_INPUTS = {
  mid: { variable: "BILLING_GATEWAY_MID", question: "gateway mid", secret: false },
  apiKey: { variable: "BILLING_GATEWAY_API_KEY", question: "gateway API key", secret: true },
  aesKey: {
    variable: "BILLING_GATEWAY_AES_KEY",
    question: "gateway AES key (64 hex characters)",
    secret: true,
  },
  partnerApiKey: {
    variable: "BILLING_GATEWAY_PARTNER_API_KEY",
    question: "gateway partner API key",
    secret: true,
  },
  webhookSecret: {
    variable: "BILLING_GATEWAY_WEBHOOK_SECRET",
    question: "gateway webhook secret",
    secret: true,
    optional: true,
  },
} as const satisfies Record<string, Asked>;

/** The IV is the gateway's default unless the merchant contract names another: a variable only, never asked. */
const AES_IV_VARIABLE = "BILLING_GATEWAY_AES_IV";

/** The authorizer reads at most this many digests (apiKeyHashesSecretSchema). */
const MAX_DIGESTS = 10;

/** What the deploy's placeholder secret holds until the merchant puts a value: {"sha256": "", "placeholder": …}. */
const deployPlaceholder = z.looseObject({ placeholder: z.string(), sha256: z.literal("") });

const setupSecrets = environmentSchema
  .pick({ GATEWAY_SECRET_ARN: true })
  .extend(intakeVariablesSchema.pick({ WEBHOOK_SECRETS_ARN: true }).shape);

/** A secret's JSON value; undefined when it has none yet. A missing secret names the outputs file's ARN. */
async function readSecretJson(session: TargetSession, secretId: string, what: string): Promise<unknown> {
  let text: string | undefined;
  try {
    const answer = await secretsManagerClientOf(session.runtime).send(
      new GetSecretValueCommand({ SecretId: secretId }),
    );
    text = answer.SecretString;
  } catch (error) {
    if (error instanceof ResourceNotFoundException && /staging label/.test(error.message)) return undefined;
    if (error instanceof ResourceNotFoundException)
      throw new CliError(`the ${what} ${secretId} of ${session.target.source} does not exist`);
    throw error;
  }
  if (text === undefined) return undefined;
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

async function putSecretJson(session: TargetSession, secretId: string, value: unknown): Promise<void> {
  await secretsManagerClientOf(session.runtime).send(
    new PutSecretValueCommand({ SecretId: secretId, SecretString: JSON.stringify(value) }),
  );
}

/** The digests the secret holds now: none while it holds the deploy's placeholder; anything else is left alone. */
function digestsOf(value: unknown, secretId: string): string[] {
  if (value === undefined || deployPlaceholder.safeParse(value).success) return [];
  const held = apiKeyHashesSecretSchema.safeParse(value, { reportInput: false });
  if (held.success) return [...held.data];
  throw new CliError(
    `the merchant API key secret ${secretId} holds neither {"sha256": [<hex digest>, …]} nor the deploy's placeholder: mend it by hand first`,
  );
}

export interface CreatedApiKey {
  readonly key: string;
  readonly secret_arn: string;
  /** How many keys the API accepts now, this one included. */
  readonly keys_accepted: number;
}

/**
 * A new merchant API key: its digest appended to the secret's (the others kept), read back and checked as the
 * authorizer checks a request, and only then returned for printing.
 */
async function createApiKey(session: TargetSession): Promise<CreatedApiKey> {
  const secretId = session.environment(authorizerEnvironment).MERCHANT_API_KEY_HASH_SECRET_ARN;
  const what = "merchant API key secret";
  const digests = digestsOf(await readSecretJson(session, secretId, what), secretId);
  if (digests.length >= MAX_DIGESTS)
    throw new CliError(
      `the ${what} ${secretId} already holds ${MAX_DIGESTS} digests, the most the API reads: remove the digest of a key no client uses, then create one`,
    );
  const prefix = session.target.kind === "local" ? "mk_local_" : "mk_live_";
  const key = `${prefix}${randomBytes(32).toString("base64url")}`;
  await putSecretJson(session, secretId, { sha256: [...digests, hashApiKey(key)] });
  const stored = digestsOf(await readSecretJson(session, secretId, what), secretId);
  if (checkAuthorization(`Bearer ${key}`, stored) !== "ok")
    throw new CliError(`the ${what} ${secretId} did not keep the new key's digest: nothing to use`);
  return { key, secret_arn: secretId, keys_accepted: stored.length };
}

/** The gateway's credentials as the functions will read them; a refusal names the variable, never the value. */
function gatewaySecretOf(values: Record<keyof typeof GATEWAY_INPUTS, string | undefined>, aesIv?: string) {
  const { webhookSecret: _, ...credentials } = values;
  const secret = { ...credentials, ...(aesIv === undefined ? {} : { aesIv }) };
  const parsed = gatewaySecretSchema.safeParse(secret, { reportInput: false });
  if (!parsed.success) {
    const problems = parsed.error.issues.map((issue) => {
      const field = fieldOf(issue) ?? "";
      const variable =
        field in GATEWAY_INPUTS ? GATEWAY_INPUTS[field as keyof typeof GATEWAY_INPUTS].variable : null;
      return `${variable ?? (field === "aesIv" ? AES_IV_VARIABLE : field)}: ${issue.message}`;
    });
    throw new CliError(`the gateway credentials are refused, nothing was written: ${problems.join("; ")}`);
  }
  return secret;
}

/** The URLs to give out: the merchant API (and its OpenAPI document), our pages, our webhooks. */
function urlsOf(session: TargetSession) {
  const api = session.target.apiUrl?.replace(/\/$/, "");
  const { PUBLIC_PAGES_BASE_URL: pages, PUBLIC_WEBHOOK_BASE_URL: webhooks = api && `${api}/webhooks` } =
    session.target.environment;
  return {
    api: api ?? null,
    openapi: api ? `${api}/openapi.json` : null,
    pages: pages ?? null,
    webhooks: webhooks ?? null,
    gateway_webhook: webhooks ? `${webhooks}/gateway` : null,
  };
}

const keyLines = (created: CreatedApiKey) => [
  "merchant API key (shown this once: keep it in your secret store now):",
  `  ${created.key}`,
  `  its SHA-256 is stored in ${created.secret_arn} (keys accepted: ${created.keys_accepted});` +
    " the API takes it within 5 minutes (the authorizer's caches)",
];

const urlLines = (urls: ReturnType<typeof urlsOf>) => [
  `merchant API: ${urls.api ?? "- (no ApiUrl in the outputs)"}`,
  ...(urls.openapi ? [`  OpenAPI:    ${urls.openapi}`] : []),
  `pages:        ${urls.pages ?? "- (no PagesUrl in the outputs)"}`,
  `webhooks:     ${urls.webhooks ?? "- (no WebhookBaseUrl in the outputs)"}`,
  ...(urls.gateway_webhook
    ? [`  register ${urls.gateway_webhook} with the gateway for CHARGEBACK webhooks`]
    : []),
];

async function setup(session: TargetSession, out: CommandIo, input: InputSource): Promise<void> {
  const arns = session.environment(setupSecrets);
  const values = await readInputs(GATEWAY_INPUTS, input);
  const gateway = gatewaySecretOf(values, input.environment[AES_IV_VARIABLE]?.trim() || undefined);
  await putSecretJson(session, arns.GATEWAY_SECRET_ARN, gateway);
  if (values.webhookSecret !== undefined)
    await putSecretJson(session, arns.WEBHOOK_SECRETS_ARN, { current: values.webhookSecret });
  const created = await createApiKey(session);
  const urls = urlsOf(session);
  const result = {
    gateway_secret: { arn: arns.GATEWAY_SECRET_ARN, mid: gateway.mid },
    webhook_secret: { arn: arns.WEBHOOK_SECRETS_ARN, written: values.webhookSecret !== undefined },
    api_key: created,
    urls,
  };
  emit(out, result, () => [
    `gateway credentials written to ${arns.GATEWAY_SECRET_ARN} (mid ${gateway.mid})`,
    values.webhookSecret === undefined
      ? `webhook secret left as it is (${GATEWAY_INPUTS.webhookSecret.variable} not given): ${arns.WEBHOOK_SECRETS_ARN}`
      : `webhook secret written under current: ${arns.WEBHOOK_SECRETS_ARN}`,
    ...keyLines(created),
    ...urlLines(urls),
  ]);
}

export function addSetupCommands(
  program: Command,
  run: CommandRunner,
  input: () => InputSource = processInput,
): void {
  program
    .command("setup")
    .description(
      "after the first deploy: write the gateway's credentials (and webhook secret), create a merchant API key, print the URLs",
    )
    .addHelpText(
      "after",
      `\nValues come from ${[...Object.values(GATEWAY_INPUTS).map(({ variable }) => variable), AES_IV_VARIABLE].join(", ")}` +
        " (the last two optional), or are asked in the terminal without echo; never from flags.",
    )
    .action(
      run(async (command, out) => {
        await withTarget(await resolveTarget(command), (session) => setup(session, out, input()));
      }),
    );
  program
    .command("api-keys")
    .description("merchant API keys (only their SHA-256 digests are stored)")
    .command("create")
    .description("create a merchant API key: its digest added to the others, the key printed once")
    .action(
      run(async (command, out) => {
        await withTarget(await resolveTarget(command), async (session) => {
          const created = await createApiKey(session);
          const urls = urlsOf(session);
          emit(out, { api_key: created, api: urls.api }, () => [
            ...keyLines(created),
            ...(urls.api ? [`merchant API: ${urls.api}`] : []),
          ]);
        });
      }),
    );
}
