import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import {
  BillingConfigError,
  CONTEXT_KEYS,
  PLACEHOLDER_GATEWAY_URLS,
  readBillingConfig,
} from "../../../lib/config";

const problemsOf = (context: Record<string, unknown>): readonly string[] => {
  try {
    readBillingConfig((key) => context[key]);
  } catch (error) {
    if (error instanceof BillingConfigError) return error.problems;
    throw error;
  }
  return [];
};

describe("readBillingConfig", () => {
  it("defaults every optional key and marks the gateway URLs as placeholders", () => {
    const config = readBillingConfig(() => undefined);
    expect(config.gatewayUrls).toEqual(PLACEHOLDER_GATEWAY_URLS);
    expect(config.unsetGatewayUrlKeys).toEqual([
      "billing:paymentBaseUrl",
      "billing:webhookAdminBaseUrl",
      "billing:partnerBaseUrl",
    ]);
    expect(config.schedules).toEqual({
      chargeRun: "rate(1 hour)",
      attemptSweep: "rate(5 minutes)",
      outboxSweep: "rate(5 minutes)",
      partnerToken: "rate(6 hours)",
      reconciliation: "cron(30 3 * * ? *)",
      partnerWebhook: "rate(1 day)",
      reminders: "cron(0 9 * * ? *)",
      revenue: "cron(5 0 * * ? *)",
    });
    expect(config.alarmEmail).toBeUndefined();
    expect(config.chargePolicy).toBeUndefined();
  });

  it("reads -c strings: numbers, JSON charge policy", () => {
    const config = readBillingConfig(
      (key) =>
        ({
          "billing:paymentBaseUrl": "https://pay.example.test",
          "billing:logRetentionDays": "30",
          "billing:chargePolicy": '{"dunningScheduleDays":[2,4]}',
          "billing:apiRateLimit": "20",
        })[key],
    );
    expect(config.gatewayUrls.paymentBaseUrl).toBe("https://pay.example.test");
    expect(config.unsetGatewayUrlKeys).not.toContain("billing:paymentBaseUrl");
    expect(config.logRetention).toBe(30);
    expect(config.chargePolicy).toEqual({ dunningScheduleDays: [2, 4] });
    expect(config.api.rateLimit).toBe(20);
  });

  it("names every invalid context key, never its value", () => {
    const problems = problemsOf({
      "billing:paymentBaseUrl": "http://pay.example.test/secret-path",
      "billing:attemptSweepSchedule": "rate(1 minutes)",
      "billing:chargePolicy": { retryBaseSeconds: 5000 },
      "billing:alarmEmail": "on call",
      "billing:logRetentionDays": 33,
      "billing:gatewayRebillEndpoint": "rebill",
    });
    expect(problems).toEqual([
      expect.stringMatching(/^billing:paymentBaseUrl: must be an https:\/\/ URL/),
      expect.stringMatching(/^billing:attemptSweepSchedule: must be "rate/),
      expect.stringMatching(/^billing:gatewayRebillEndpoint: .*"tokenbilling"\|"payment"/),
      expect.stringMatching(/^billing:chargePolicy\.retryBaseSeconds: /),
      expect.stringMatching(/^billing:chargePolicy\.retryBaseSeconds: /),
      expect.stringMatching(/^billing:alarmEmail: /),
      expect.stringMatching(/^billing:logRetentionDays: must be one of/),
    ]);
    expect(problems.join("\n")).not.toMatch(/secret-path|on call|5000/);
  });

  it("reads the gateway's decline codes as JSON and refuses unknown lists", () => {
    const config = readBillingConfig(
      (key) => ({ "billing:gatewayDeclineCodes": '{"deadCardRescodes":["S023"]}' })[key],
    );
    expect(config.gatewayDeclineCodes).toEqual({ deadCardRescodes: ["S023"] });
    expect(problemsOf({ "billing:gatewayDeclineCodes": '{"deadCardCodes":["S023"]}' })).toEqual([
      expect.stringMatching(/^billing:gatewayDeclineCodes: .*deadCardCodes/),
    ]);
  });

  it("refuses unknown charge policy keys (typos)", () => {
    expect(problemsOf({ "billing:chargePolicy": '{"dunningScheduleDay":[1]}' })).toEqual([
      expect.stringMatching(/^billing:chargePolicy: .*dunningScheduleDay/),
    ]);
  });
});

describe("docs/deploying.md, Deploying to AWS", () => {
  it("names every context key the app reads, and none it does not", () => {
    const deploying = readFileSync(new URL("../../../docs/deploying.md", import.meta.url), "utf8");
    const section = deploying.slice(
      deploying.indexOf("# Deploying to AWS"),
      deploying.indexOf("## Alarms and runbook"),
    );
    const named = new Set(section.match(/billing:[A-Za-z]+/g));
    expect([...named].sort()).toEqual([...CONTEXT_KEYS].sort());
  });
});
