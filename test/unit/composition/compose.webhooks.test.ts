import { describe, expect, it } from "vitest";
import { webhookTransport } from "../../../functions/composition/components";
import { compose } from "../../../functions/composition/compose";
import { createRuntime } from "../../../functions/composition/runtime";
import { EnvironmentError } from "../../../functions/lambda/environment";

// Local mode relaxes the webhook URL rules (http, loopback) with WEBHOOK_URL_POLICY=local; no Lambda function may.

describe("the webhook transport's URL policy", () => {
  const build = (variables: Record<string, string>) =>
    compose(createRuntime(), variables).get(webhookTransport);

  it("is public unless local mode says local", async () => {
    expect(await build({}).refusalOf("http://127.0.0.1:9/x")).toBe("must use https");
    expect(await build({ WEBHOOK_URL_POLICY: "public" }).refusalOf("http://127.0.0.1:9/x")).toBe(
      "must use https",
    );
    expect(await build({ WEBHOOK_URL_POLICY: "local" }).refusalOf("http://127.0.0.1:9/x")).toBeUndefined();
  });

  it("refuses to be local where Lambda runs the function", () => {
    expect(() => build({ WEBHOOK_URL_POLICY: "local", AWS_LAMBDA_FUNCTION_NAME: "send-webhooks" })).toThrow(
      EnvironmentError,
    );
    expect(() => build({ WEBHOOK_URL_POLICY: "lax" })).toThrow(EnvironmentError);
  });
});
