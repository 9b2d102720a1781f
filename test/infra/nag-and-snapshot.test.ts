import { AwsSolutionsChecks } from "cdk-nag";
import { describe, expect, it } from "vitest";
import { normalizeTemplate, synthBillingApp } from "./billing-app";

describe("cdk-nag AwsSolutions", () => {
  it.each([
    ["configured", undefined],
    ["offline defaults", {}],
  ])("finds nothing unacknowledged (%s)", (_name, context) => {
    const { app } = synthBillingApp(context);
    const report = new AwsSolutionsChecks().validateScope(app);
    expect(report.violations.map((v) => `${v.ruleName} ${v.violatingResources[0]?.constructPath}`)).toEqual(
      [],
    );
  });
});

describe("templates", () => {
  it("match the snapshot (asset hashes stripped)", () => {
    const { stateful, service, monitoring } = synthBillingApp();
    expect(normalizeTemplate(stateful)).toMatchSnapshot("BillingStateful");
    expect(normalizeTemplate(service)).toMatchSnapshot("BillingService");
    expect(normalizeTemplate(monitoring)).toMatchSnapshot("BillingMonitoring");
  });
});
