import { describe, expect, it } from "vitest";
import { environmentFromCdkOutputs } from "../../../cli/target";
import * as SERVICE_SETS from "../../../functions/composition/service-sets";
import { loadEnvironment } from "../../../functions/lambda/environment";

// What `cdk deploy --outputs-file` writes for the two stacks (lib/stack-outputs.ts), as the CLI reads it.
const deployed = {
  BillingStateful: {
    Region: "eu-west-1",
    TableName: "BillingStateful-BillingTableC3F396AA-1ABC",
    ChargeQueueUrl: "https://sqs.eu-west-1.amazonaws.com/123456789012/BillingStateful-ChargeWorkQueue",
    ChargeDeadLetterQueueUrl:
      "https://sqs.eu-west-1.amazonaws.com/123456789012/BillingStateful-ChargeWorkDLQ",
    IntakeQueueUrl: "https://sqs.eu-west-1.amazonaws.com/123456789012/BillingStateful-IntakeWorkQueue",
    IntakeDeadLetterQueueUrl:
      "https://sqs.eu-west-1.amazonaws.com/123456789012/BillingStateful-IntakeWorkDLQ",
    GatewaySecretArn: "arn:aws:secretsmanager:eu-west-1:123456789012:secret:GatewayCredentials-AbCdEf",
    ExportsOutputRefBillingTableC3F396AA: "BillingStateful-BillingTableC3F396AA-1ABC",
  },
  BillingService: {
    ApiUrl: "https://abc123.execute-api.eu-west-1.amazonaws.com",
    PaymentBaseUrl: "https://payment.example.test",
    WebhookAdminBaseUrl: "https://webhook-admin.example.test",
    PartnerBaseUrl: "https://partner.example.test",
  },
  SomeOtherStack: { Unrelated: "value" },
};

describe("environmentFromCdkOutputs", () => {
  it("maps the stacks' outputs to the Lambda variables, the API URL apart, other outputs ignored", () => {
    const { environment, apiUrl } = environmentFromCdkOutputs(deployed);
    expect(apiUrl).toBe("https://abc123.execute-api.eu-west-1.amazonaws.com");
    expect(environment).toEqual({
      AWS_REGION: "eu-west-1",
      TABLE_NAME: deployed.BillingStateful.TableName,
      CHARGE_QUEUE_URL: deployed.BillingStateful.ChargeQueueUrl,
      CHARGE_DLQ_URL: deployed.BillingStateful.ChargeDeadLetterQueueUrl,
      INTAKE_QUEUE_URL: deployed.BillingStateful.IntakeQueueUrl,
      INTAKE_DLQ_URL: deployed.BillingStateful.IntakeDeadLetterQueueUrl,
      GATEWAY_SECRET_ARN: deployed.BillingStateful.GatewaySecretArn,
      PAYMENT_BASE_URL: "https://payment.example.test",
      WEBHOOK_ADMIN_BASE_URL: "https://webhook-admin.example.test",
      PARTNER_BASE_URL: "https://partner.example.test",
    });
  });

  it("gives every command's handler environment: charge run, reconciliation, the intake queue", () => {
    const { environment } = environmentFromCdkOutputs(deployed);
    expect(loadEnvironment(SERVICE_SETS.chargeRun.environment, environment)).toEqual({
      TABLE_NAME: deployed.BillingStateful.TableName,
      CHARGE_QUEUE_URL: deployed.BillingStateful.ChargeQueueUrl,
    });
    expect(loadEnvironment(SERVICE_SETS.reconciliation.environment, environment)).toMatchObject({
      GATEWAY_SECRET_ARN: deployed.BillingStateful.GatewaySecretArn,
      PAYMENT_BASE_URL: "https://payment.example.test",
    });
    expect(loadEnvironment(SERVICE_SETS.intakeReceiver.environment, environment).INTAKE_QUEUE_URL).toBe(
      deployed.BillingStateful.IntakeQueueUrl,
    );
  });

  it("refuses a file that is not cdk's outputs, or holds none of the billing stacks'", () => {
    expect(() => environmentFromCdkOutputs({ TableName: "t" })).toThrow(
      "the outputs file is not what cdk deploy --outputs-file writes",
    );
    expect(() => environmentFromCdkOutputs([])).toThrow("is not what cdk deploy");
    expect(() => environmentFromCdkOutputs({ SomeOtherStack: { Unrelated: "value" } })).toThrow(
      "the outputs file holds none of the billing stacks' outputs (Region, TableName,",
    );
  });
});
