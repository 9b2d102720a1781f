import { App } from "aws-cdk-lib";
import { Template } from "aws-cdk-lib/assertions";
import { z } from "zod";
import { addBillingStacks } from "../../lib/billing-app";

/** Gateway URLs as a deployment would set them (no placeholder guard); example.test never resolves. */
export const CONFIGURED_CONTEXT = {
  "billing:paymentBaseUrl": "https://payment.example.test",
  "billing:webhookAdminBaseUrl": "https://webhook-admin.example.test",
  "billing:partnerBaseUrl": "https://partner.example.test",
  "billing:alarmEmail": "oncall@example.test",
  "billing:merchantName": "Example SaaS",
  "billing:portalActions": '["update_card","cancel"]',
  "billing:mail": {
    from: "Example SaaS <billing@example.test>",
    support_email: "help@example.test",
    configuration_set: "billing-mail",
  },
};

/**
 * The billing app without bundling (aws:cdk:bundling-stacks: []), version metadata or CDK's built-in template
 * validation (8 s a synth; `npm run synth` keeps it): fast and deterministic.
 */
export function synthBillingApp(context: Record<string, unknown> = CONFIGURED_CONTEXT) {
  const app = new App({
    builtinCloudFormationValidation: false,
    context: { "aws:cdk:bundling-stacks": [], "aws:cdk:version-reporting": false, ...context },
  });
  const stacks = addBillingStacks(app);
  return {
    app,
    ...stacks,
    stateful: Template.fromStack(stacks.stateful),
    service: Template.fromStack(stacks.service),
    monitoring: Template.fromStack(stacks.service.monitoring),
  };
}

const resourceSchema = z.looseObject({
  Type: z.string(),
  Properties: z.record(z.string(), z.unknown()).optional(),
});
export type Resource = z.output<typeof resourceSchema>;

/** Resources of one type, by logical id. */
export function resourcesOf(template: Template, type: string): [string, Resource][] {
  return Object.entries(z.record(z.string(), resourceSchema).parse(template.findResources(type)));
}

/** Asset hashes change with every source edit: a snapshot keeps the template's shape only. */
export function normalizeTemplate(template: Template): unknown {
  return JSON.parse(JSON.stringify(template.toJSON()).replace(/[0-9a-f]{64}/g, "<asset-hash>"));
}
