import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import { LOCAL_CREDENTIALS, LOCAL_REGION } from "../../local/aws/dynamodb-emulator";
import {
  type SecretsManagerStandIn,
  startSecretsManagerStandIn,
} from "../../local/aws/secrets-manager-stand-in";

export interface SecretsManagerUnderTest {
  readonly standIn: SecretsManagerStandIn;
  /** The real SDK client, pointed at the stand-in. */
  readonly client: SecretsManagerClient;
  close(): Promise<void>;
}

/** The Secrets Manager stand-in with a real SDK client of it. */
export async function startSecretsManagerUnderTest(): Promise<SecretsManagerUnderTest> {
  process.env.AWS_SDK_JS_NODE_VERSION_SUPPORT_WARNING_DISABLED = "true";
  const standIn = await startSecretsManagerStandIn();
  const client = new SecretsManagerClient({
    endpoint: standIn.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  return {
    standIn,
    client,
    async close() {
      client.destroy();
      await standIn.close();
    },
  };
}
