import { SecretsProvider } from "@aws-lambda-powertools/parameters/secrets";
import { SecretsManagerClient } from "@aws-sdk/client-secrets-manager";
import type { SdkClientHost } from "./sdk-clients";

/** The host's Secrets Manager client. */
export function secretsManagerClientOf(host: SdkClientHost): SecretsManagerClient {
  return host.client("secretsManager", () => new SecretsManagerClient(host.clientConfig("secretsManager")));
}

/** Powertools' secret reader over the host's client: its cache lives as long as the host. */
export function secretsProviderOf(host: SdkClientHost): SecretsProvider {
  return host.client("secrets", () => new SecretsProvider({ awsSdkV3Client: secretsManagerClientOf(host) }));
}
