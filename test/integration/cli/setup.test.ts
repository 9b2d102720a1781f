import { mkdtemp, rm, writeFile } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it, vi } from "vitest";
import { z } from "zod";
import { hashApiKey } from "../../../functions/api/api-key";
import { createRuntime } from "../../../functions/composition/runtime";
import {
  type SecretsManagerStandIn,
  startSecretsManagerStandIn,
} from "../../../local/aws/secrets-manager-stand-in";
import type { runCli as RunCli } from "../../support/cli-run";

// `npx billing --outputs cdk-outputs.json setup` and `api-keys create` after a deploy (README, Deploying to AWS), on
// the real Secrets Manager client against the stand-in that answers its wire protocol: the secrets hold the deploy's
// placeholders as CDK makes them, the outputs file is what `cdk deploy --outputs-file` writes, and the SDK finds the
// stand-in through AWS_ENDPOINT_URL_SECRETS_MANAGER as it would find any endpoint. The printed key is then put to
// the merchant API's authorizer, composed as on Lambda over the same secret.

// Read when the handlers' logger and metrics load: set before the CLI and the functions are imported.
process.env.POWERTOOLS_LOG_LEVEL = "ERROR";
process.env.POWERTOOLS_METRICS_DISABLED = "true";
const { runCli }: { runCli: typeof RunCli } = await import("../../support/cli-run");
const { run: authorize } = await import("../../../functions/handlers/authorize-merchant");
const { compose } = await import("../../../functions/composition/compose");
const { readGatewaySecret } = await import("../../../functions/composition/secrets");
const SERVICE_SETS = await import("../../../functions/composition/service-sets");

const REGION = "eu-west-1";
const CREDENTIALS = { accessKeyId: "AKIDSETUPTEST", secretAccessKey: "setup-test-secret" };
const API_URL = "https://a1b2c3d4e5.execute-api.eu-west-1.amazonaws.com";
const PAGES_URL = "https://f6g7h8i9j0.execute-api.eu-west-1.amazonaws.com";

const GATEWAY = {
  BILLING_GATEWAY_MID: "1A2B3C4D5E",
  BILLING_GATEWAY_API_KEY: "gw_api_key_never_printed_7f3a",
  BILLING_GATEWAY_AES_KEY: "00112233445566778899aabbccddeeff00112233445566778899aabbccddeeff",
  BILLING_GATEWAY_PARTNER_API_KEY: "gw_partner_key_never_printed_91c2",
};
const WEBHOOK_SECRET = "gw_webhook_secret_never_printed_5d0e";

/** CDK's generated placeholder: the fields empty and a random `placeholder`. */
const placeholder = (...fields: string[]) =>
  JSON.stringify({ ...Object.fromEntries(fields.map((field) => [field, ""])), placeholder: "Xq7Tm2Lp9Rz4" });

const setupAnswer = z.object({
  gateway_secret: z.object({ arn: z.string(), mid: z.string() }),
  webhook_secret: z.object({ arn: z.string(), written: z.boolean() }),
  api_key: z.object({ key: z.string(), secret_arn: z.string(), keys_accepted: z.number() }),
  urls: z.object({
    api: z.string(),
    openapi: z.string(),
    pages: z.string(),
    webhooks: z.string(),
    gateway_webhook: z.string(),
  }),
});
const createAnswer = z.object({ api_key: setupAnswer.shape.api_key, api: z.string() });

let secrets: SecretsManagerStandIn;
let dir: string;
let outputs: string;
const arn = { gateway: "", webhook: "", apiKeys: "" };

/** The authorizer as Lambda runs it: its service set composed over the secret's ARN, a fresh cache each time. */
async function authorizes(key: string): Promise<boolean> {
  const runtime = createRuntime({
    region: REGION,
    credentials: CREDENTIALS,
    endpoints: { secretsManager: secrets.endpoint },
  });
  try {
    const services = await SERVICE_SETS.authorizer.from(
      compose(runtime, { MERCHANT_API_KEY_HASH_SECRET_ARN: arn.apiKeys }),
    );
    const verdict = await authorize(
      { headers: { authorization: `Bearer ${key}` }, routeKey: "GET /v1/subscriptions" },
      services,
    );
    return verdict.isAuthorized;
  } finally {
    runtime.close();
  }
}

const stored = (secretId: string) => JSON.parse(secrets.secretString(secretId) ?? "null");

/** stdin's own isTTY, put back at the end. */
const stdinTty = Object.getOwnPropertyDescriptor(process.stdin, "isTTY");

beforeAll(async () => {
  // Whatever runs the tests, nothing is asked: a missing value is named instead.
  Object.defineProperty(process.stdin, "isTTY", { value: false, configurable: true });
  secrets = await startSecretsManagerStandIn(REGION);
  dir = await mkdtemp(join(tmpdir(), "billing-setup-"));
  outputs = join(dir, "cdk-outputs.json");
});

beforeEach(async () => {
  arn.gateway = secrets.setSecret(
    `GatewayCredentials-${Math.random()}`,
    placeholder("mid", "apiKey", "aesKey", "partnerApiKey"),
  );
  arn.webhook = secrets.setSecret(`WebhookSecrets-${Math.random()}`, placeholder("current", "next"));
  arn.apiKeys = secrets.setSecret(`MerchantApiKeyHash-${Math.random()}`, placeholder("sha256"));
  await writeFile(
    outputs,
    JSON.stringify({
      BillingStateful: {
        Region: REGION,
        TableName: "BillingStateful-BillingTable-1ABC",
        GatewaySecretArn: arn.gateway,
        WebhookSecretsArn: arn.webhook,
        MerchantApiKeyHashSecretArn: arn.apiKeys,
      },
      BillingService: { ApiUrl: API_URL, PagesUrl: PAGES_URL, WebhookBaseUrl: `${API_URL}/webhooks` },
    }),
  );
  vi.stubEnv("AWS_ENDPOINT_URL_SECRETS_MANAGER", secrets.endpoint);
  vi.stubEnv("AWS_ACCESS_KEY_ID", CREDENTIALS.accessKeyId);
  vi.stubEnv("AWS_SECRET_ACCESS_KEY", CREDENTIALS.secretAccessKey);
  for (const [name, value] of Object.entries(GATEWAY)) vi.stubEnv(name, value);
});

afterEach(() => {
  vi.unstubAllEnvs();
});

afterAll(async () => {
  if (stdinTty) Object.defineProperty(process.stdin, "isTTY", stdinTty);
  else Reflect.deleteProperty(process.stdin, "isTTY");
  await secrets?.close();
  if (dir) await rm(dir, { recursive: true, force: true });
});

describe("billing setup after the first deploy", () => {
  it("writes the gateway's credentials and webhook secret, makes a key the authorizer accepts, prints the URLs", async () => {
    vi.stubEnv("BILLING_GATEWAY_WEBHOOK_SECRET", WEBHOOK_SECRET);
    const run = await runCli(["--outputs", outputs, "setup", "--json"]);
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: "" });
    const answer = setupAnswer.parse(JSON.parse(run.stdout));

    expect(stored(arn.gateway)).toEqual({
      mid: GATEWAY.BILLING_GATEWAY_MID,
      apiKey: GATEWAY.BILLING_GATEWAY_API_KEY,
      aesKey: GATEWAY.BILLING_GATEWAY_AES_KEY,
      partnerApiKey: GATEWAY.BILLING_GATEWAY_PARTNER_API_KEY,
    });
    expect(stored(arn.webhook)).toEqual({ current: WEBHOOK_SECRET });
    expect(stored(arn.apiKeys)).toEqual({ sha256: [hashApiKey(answer.api_key.key)] });
    // What the functions read: the gateway client's credentials as they check them.
    const runtime = createRuntime({
      region: REGION,
      credentials: CREDENTIALS,
      endpoints: { secretsManager: secrets.endpoint },
    });
    await expect(readGatewaySecret(runtime, arn.gateway)).resolves.toMatchObject({
      mid: GATEWAY.BILLING_GATEWAY_MID,
    });
    runtime.close();

    expect(answer).toMatchObject({
      gateway_secret: { arn: arn.gateway, mid: GATEWAY.BILLING_GATEWAY_MID },
      webhook_secret: { arn: arn.webhook, written: true },
      api_key: { secret_arn: arn.apiKeys, keys_accepted: 1 },
      urls: {
        api: API_URL,
        openapi: `${API_URL}/openapi.json`,
        pages: PAGES_URL,
        webhooks: `${API_URL}/webhooks`,
        gateway_webhook: `${API_URL}/webhooks/gateway`,
      },
    });
    expect(answer.api_key.key).toMatch(/^mk_live_[A-Za-z0-9_-]{43}$/);
    expect(await authorizes(answer.api_key.key)).toBe(true);
    expect(await authorizes(`${answer.api_key.key.slice(0, -1)}x`)).toBe(false);
    // No secret the operator gave is ever printed.
    for (const value of [...Object.values(GATEWAY).slice(1), WEBHOOK_SECRET])
      expect(run.stdout).not.toContain(value);
  });

  it("prints the key once among the URLs, and leaves the webhook secret alone when none is given", async () => {
    const run = await runCli(["--outputs", outputs, "setup"]);
    expect(run, run.stderr).toMatchObject({ code: 0, stderr: "" });
    const key = /^ {2}(mk_live_\S+)$/m.exec(run.stdout)?.[1] ?? "";
    expect(run.stdout.split(key)).toHaveLength(2);
    expect(run.stdout).toContain(`gateway credentials written to ${arn.gateway} (mid 1A2B3C4D5E)`);
    expect(run.stdout).toContain("webhook secret left as it is (BILLING_GATEWAY_WEBHOOK_SECRET not given)");
    expect(run.stdout).toContain(`merchant API: ${API_URL}`);
    expect(run.stdout).toContain(
      `register ${API_URL}/webhooks/gateway with the gateway for CHARGEBACK webhooks`,
    );
    expect(stored(arn.webhook)).toMatchObject({ current: "", placeholder: expect.any(String) });
    expect(await authorizes(key)).toBe(true);
  });

  it("api-keys create adds a key beside the others, each accepted", async () => {
    const first = createAnswer.parse(
      JSON.parse((await runCli(["--outputs", outputs, "api-keys", "create", "--json"])).stdout),
    );
    const second = createAnswer.parse(
      JSON.parse((await runCli(["--outputs", outputs, "api-keys", "create", "--json"])).stdout),
    );
    expect(second).toMatchObject({ api: API_URL, api_key: { keys_accepted: 2 } });
    expect(stored(arn.apiKeys)).toEqual({ sha256: [first.api_key.key, second.api_key.key].map(hashApiKey) });
    expect(await authorizes(first.api_key.key)).toBe(true);
    expect(await authorizes(second.api_key.key)).toBe(true);
  });

  it("refuses credentials the functions could not use, naming the variable, never its value, writing nothing", async () => {
    vi.stubEnv("BILLING_GATEWAY_AES_KEY", "tooshort-secret-aes-value");
    vi.stubEnv("BILLING_GATEWAY_MID", "MID_OF_MORE_THAN_TEN");
    const before = secrets.secretString(arn.gateway);
    const run = await runCli(["--outputs", outputs, "setup"]);
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toMatch(/^billing: the gateway credentials are refused, nothing was written: /);
    expect(run.stderr).toContain("BILLING_GATEWAY_MID: ");
    expect(run.stderr).toContain("BILLING_GATEWAY_AES_KEY: ");
    expect(run.stderr).not.toContain("tooshort");
    expect(secrets.secretString(arn.gateway)).toBe(before);
    expect(stored(arn.apiKeys)).toMatchObject({ sha256: "" });
  });

  it("without a terminal, names the variables it lacks and asks nothing", async () => {
    vi.stubEnv("BILLING_GATEWAY_API_KEY", "");
    vi.stubEnv("BILLING_GATEWAY_PARTNER_API_KEY", "  ");
    const run = await runCli(["--outputs", outputs, "setup"]);
    expect(run).toEqual({
      code: 1,
      stdout: "",
      stderr:
        "billing: set BILLING_GATEWAY_API_KEY, BILLING_GATEWAY_PARTNER_API_KEY (or run this in a terminal, which asks for them)\n",
    });
  });

  it("keeps the digests already there, and refuses an eleventh or a secret it does not understand", async () => {
    const digests = Array.from({ length: 10 }, (_, index) =>
      hashApiKey(`mk_live_existing_key_number_${index}`),
    );
    secrets.setSecret(arn.apiKeys, JSON.stringify({ sha256: digests.slice(0, 9) }));
    const added = createAnswer.parse(
      JSON.parse((await runCli(["--outputs", outputs, "api-keys", "create", "--json"])).stdout),
    );
    expect(stored(arn.apiKeys)).toEqual({ sha256: [...digests.slice(0, 9), hashApiKey(added.api_key.key)] });

    const full = await runCli(["--outputs", outputs, "api-keys", "create"]);
    expect(full.code).toBe(1);
    expect(full.stderr).toContain("already holds 10 digests, the most the API reads");

    secrets.setSecret(arn.apiKeys, JSON.stringify({ keys: ["a"] }));
    const unknown = await runCli(["--outputs", outputs, "api-keys", "create"]);
    expect(unknown.stderr).toContain(
      'holds neither {"sha256": [<hex digest>, …]} nor the deploy\'s placeholder',
    );
    expect(stored(arn.apiKeys)).toEqual({ keys: ["a"] });
  });

  it("names a secret the outputs file lacks, before writing anything", async () => {
    await writeFile(
      outputs,
      JSON.stringify({ BillingStateful: { Region: REGION, GatewaySecretArn: arn.gateway } }),
    );
    const run = await runCli(["--outputs", outputs, "setup"]);
    expect(run).toMatchObject({ code: 1, stdout: "" });
    expect(run.stderr).toContain("WEBHOOK_SECRETS_ARN is not set");
    expect(stored(arn.gateway)).toMatchObject({ placeholder: expect.any(String) });
  });
});
