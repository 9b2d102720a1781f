import { Validations } from "aws-cdk-lib";
import type { IConstruct } from "constructs";

/**
 * Acknowledges one cdk-nag finding on a construct and everything under it. Every acknowledgement carries its
 * reason; `finding` narrows a multi-finding rule (IAM5) to one entry, e.g. "Resource::*".
 */
export function acknowledge(scope: IConstruct, rule: string, reason: string, finding?: string): void {
  Validations.of(scope).acknowledge({ id: finding === undefined ? rule : `${rule}[${finding}]`, reason });
}
