import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createSecretsManagerTokenStore } from "../../../functions/adapters/aws/secrets-manager-token-store";
import type { SecretsManagerStandIn } from "../../../local/aws/secrets-manager-stand-in";
import { startSecretsManagerUnderTest } from "../../support/secrets-manager";

let standIn: SecretsManagerStandIn;
let client: SecretsManagerClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ standIn, client, close } = await startSecretsManagerUnderTest());
});
afterAll(() => close());

const TOKEN = {
  token: "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJwYXJ0bmVyIn0.c2ln",
  expiredAt: "2027-03-02T12:00:00.000Z",
};
let counter = 0;
const freshSecret = (value?: string) => standIn.setSecret(`partner-token-${++counter}`, value);

describe("the Secrets Manager partner-token store", () => {
  it("reads no token from a missing secret, a secret without a value, or a placeholder value", async () => {
    const ids = ["never-created", freshSecret(), freshSecret("generated-placeholder"), freshSecret("{}")];
    for (const secretId of ids) {
      expect(await createSecretsManagerTokenStore({ client, secretId }).get()).toBeUndefined();
    }
  });

  it("writes the token as JSON that every other reader parses", async () => {
    const secretId = freshSecret();
    await createSecretsManagerTokenStore({ client, secretId }).put(TOKEN);
    expect(JSON.parse(standIn.secretString(secretId) ?? "")).toEqual(TOKEN);
    expect(await createSecretsManagerTokenStore({ client, secretId }).get()).toEqual(TOKEN);
  });

  it("reuses a read for cacheMs, then sees what another writer stored", async () => {
    const secretId = freshSecret(JSON.stringify(TOKEN));
    let now = 0;
    const reader = createSecretsManagerTokenStore({ client, secretId, cacheMs: 60_000, now: () => now });
    expect(await reader.get()).toEqual(TOKEN);
    const newer = { ...TOKEN, expiredAt: "2027-03-03T12:00:00.000Z" };
    await createSecretsManagerTokenStore({ client, secretId }).put(newer);
    now = 59_999;
    expect(await reader.get()).toEqual(TOKEN);
    now = 60_000;
    expect(await reader.get()).toEqual(newer);
  });

  it("fails on anything but a missing secret (a reader must not treat an outage as no token)", async () => {
    const unreachable = new SecretsManagerClient({
      endpoint: "http://127.0.0.1:9",
      region: "us-east-1",
      credentials: { accessKeyId: "local", secretAccessKey: "local" },
      maxAttempts: 1,
    });
    await expect(
      createSecretsManagerTokenStore({ client: unreachable, secretId: "x" }).get(),
    ).rejects.toThrow();
    unreachable.destroy();
  });
});
