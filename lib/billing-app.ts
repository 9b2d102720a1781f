import { type App, Validations } from "aws-cdk-lib";
import { AwsSolutionsChecks } from "cdk-nag";
import { type BillingConfig, readBillingConfig } from "./config";
import { BillingServiceStack } from "./service-stack";
import { BillingStatefulStack } from "./stateful-stack";

export interface BillingStacks {
  readonly config: BillingConfig;
  readonly stateful: BillingStatefulStack;
  readonly service: BillingServiceStack;
}

/**
 * The two stacks of one deployment, configured from the app's context. Environment-agnostic: the account and region
 * are the CLI's (AWS_PROFILE / AWS_REGION); nothing account-specific is in the code.
 */
export function addBillingStacks(app: App): BillingStacks {
  const config = readBillingConfig((key) => app.node.tryGetContext(key));
  const stateful = new BillingStatefulStack(app, "BillingStateful", {
    description: "Recurring billing: table, work queues, secrets, event bus (retained data)",
  });
  const service = new BillingServiceStack(app, "BillingService", {
    description: "Recurring billing: functions, HTTP API, schedules, alarms and dashboard",
    resources: stateful.resources,
    config,
  });
  return { config, stateful, service };
}

/** cdk-nag's AwsSolutions rules as a CDK policy-validation plugin: any unacknowledged finding fails the synth. */
export function enforceAwsSolutions(app: App): void {
  Validations.of(app).addPlugins(new AwsSolutionsChecks(app, { writeSuppressionsToCloudFormation: true }));
}
