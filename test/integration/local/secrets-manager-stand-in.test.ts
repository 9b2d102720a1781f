import { SecretsProvider } from "@aws-lambda-powertools/parameters/secrets";
import {
  CreateSecretCommand,
  GetSecretValueCommand,
  PutSecretValueCommand,
  ResourceExistsException,
  ResourceNotFoundException,
  type SecretsManagerClient,
} from "@aws-sdk/client-secrets-manager";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SecretsManagerStandIn } from "../../../local/aws/secrets-manager-stand-in";
import { startSecretsManagerUnderTest } from "../../support/secrets-manager";

let standIn: SecretsManagerStandIn;
let client: SecretsManagerClient;
let close: () => Promise<void>;

beforeAll(async () => {
  ({ standIn, client, close } = await startSecretsManagerUnderTest());
});
afterAll(() => close());

describe("the Secrets Manager stand-in, through the real SDK", () => {
  it("creates a secret and returns its value by name and by ARN", async () => {
    const created = await client.send(
      new CreateSecretCommand({ Name: "app/one", SecretString: '{"a":"1"}' }),
    );
    expect(created.ARN).toMatch(
      /^arn:aws:secretsmanager:us-east-1:000000000000:secret:app\/one-[0-9a-f]{6}$/,
    );
    for (const id of ["app/one", created.ARN]) {
      const value = await client.send(new GetSecretValueCommand({ SecretId: id }));
      expect(value).toMatchObject({ Name: "app/one", ARN: created.ARN, SecretString: '{"a":"1"}' });
      expect(value.VersionStages).toEqual(["AWSCURRENT"]);
      expect(value.CreatedDate).toBeInstanceOf(Date);
      expect(value.VersionId).toBe(created.VersionId);
    }
  });

  it("keeps the latest value only after PutSecretValue", async () => {
    const { ARN } = await client.send(new CreateSecretCommand({ Name: "app/two", SecretString: "v1" }));
    const put = await client.send(new PutSecretValueCommand({ SecretId: ARN, SecretString: "v2" }));
    expect(put).toMatchObject({ ARN, Name: "app/two", VersionStages: ["AWSCURRENT"] });
    const value = await client.send(new GetSecretValueCommand({ SecretId: "app/two" }));
    expect(value).toMatchObject({ SecretString: "v2", VersionId: put.VersionId });
    expect(standIn.secretString(ARN ?? "")).toBe("v2");
  });

  it("stores binary secrets as the SDK sends them", async () => {
    await client.send(
      new CreateSecretCommand({ Name: "app/binary", SecretBinary: new Uint8Array([1, 2, 250]) }),
    );
    const value = await client.send(new GetSecretValueCommand({ SecretId: "app/binary" }));
    expect([...(value.SecretBinary ?? [])]).toEqual([1, 2, 250]);
    expect(value.SecretString).toBeUndefined();
  });

  it("answers ResourceNotFoundException for an unknown secret and for a secret without a value", async () => {
    await expect(client.send(new GetSecretValueCommand({ SecretId: "nope" }))).rejects.toBeInstanceOf(
      ResourceNotFoundException,
    );
    await expect(
      client.send(new PutSecretValueCommand({ SecretId: "nope", SecretString: "x" })),
    ).rejects.toThrow(ResourceNotFoundException);
    await client.send(new CreateSecretCommand({ Name: "app/empty" }));
    await expect(client.send(new GetSecretValueCommand({ SecretId: "app/empty" }))).rejects.toThrow(
      /can't find the specified secret value for staging label: AWSCURRENT/,
    );
  });

  it("refuses a second secret of the same name and replays an idempotent put", async () => {
    await client.send(new CreateSecretCommand({ Name: "app/three", SecretString: "x" }));
    await expect(client.send(new CreateSecretCommand({ Name: "app/three" }))).rejects.toBeInstanceOf(
      ResourceExistsException,
    );
    const token = "11111111-2222-3333-4444-555555555555";
    const first = await client.send(
      new PutSecretValueCommand({ SecretId: "app/three", SecretString: "y", ClientRequestToken: token }),
    );
    const replay = await client.send(
      new PutSecretValueCommand({ SecretId: "app/three", SecretString: "y", ClientRequestToken: token }),
    );
    expect(replay.VersionId).toBe(first.VersionId);
    await expect(
      client.send(
        new PutSecretValueCommand({ SecretId: "app/three", SecretString: "z", ClientRequestToken: token }),
      ),
    ).rejects.toBeInstanceOf(ResourceExistsException);
  });

  it("rejects invalid input with a ValidationException naming the field", async () => {
    await expect(client.send(new GetSecretValueCommand({ SecretId: "" }))).rejects.toMatchObject({
      name: "ValidationException",
      message: expect.stringContaining("SecretId"),
    });
  });

  it("serves Powertools parameters' SecretsProvider with the JSON transform", async () => {
    standIn.setSecret("app/json", '{"mid":"M1","apiKey":"k"}');
    const provider = new SecretsProvider({ awsSdkV3Client: client });
    expect(await provider.get("app/json", { transform: "json" })).toEqual({ mid: "M1", apiKey: "k" });
  });
});
