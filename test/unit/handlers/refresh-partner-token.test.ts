import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { GatewayOutcome } from "../../../functions/core/base/outcome";
import type { PartnerTokenRefreshDeps } from "../../../functions/core/partner/partner-token-refresh";
import type { PartnerToken } from "../../../functions/gateway/partner-token";
import { run as refreshPartnerToken } from "../../../functions/handlers/refresh-partner-token";
import { metrics } from "../../../functions/lambda/observability";
import { scheduledEvent } from "../../../local/lambda/lambda-context";
import { spyOnMetrics } from "../../support/metric-spy";

let recorded: ReturnType<typeof spyOnMetrics>;
beforeEach(() => {
  recorded = spyOnMetrics();
});
afterEach(() => metrics.clearMetrics());

const NOW = new Date("2027-03-01T12:00:00.000Z");
const HOUR = 3_600_000;
const token = (name: string, hoursLeft: number): PartnerToken => ({
  token: `eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiI${name}In0.sig`,
  expiredAt: new Date(NOW.getTime() + hoursLeft * HOUR).toISOString(),
});

/** A store holding `stored` and a provider that answers `outcome` (storing it when it is a new token). */
function services(
  stored: PartnerToken | undefined,
  outcome: GatewayOutcome<PartnerToken>,
): PartnerTokenRefreshDeps {
  let current = stored;
  return {
    store: { get: async () => current },
    tokens: {
      current: async () => {
        if (outcome.kind === "success") current = outcome.value;
        return outcome;
      },
    },
    clock: { now: () => NOW },
  };
}

describe("refreshPartnerToken", () => {
  it("keeps a token with time left and puts its hours left", async () => {
    const kept = token("a", 20);
    const report = await refreshPartnerToken(
      scheduledEvent(),
      services(kept, { kind: "success", value: kept }),
    );
    expect(report).toEqual({ kind: "kept", hoursLeft: 20, expiredAt: kept.expiredAt });
    expect(recorded.values()).toEqual({ PartnerTokenHoursLeft: 20 });
  });

  it("reports a replaced token as refreshed", async () => {
    const fresh = token("b", 24);
    const report = await refreshPartnerToken({}, services(token("a", 5), { kind: "success", value: fresh }));
    expect(report).toMatchObject({ kind: "refreshed", hoursLeft: 24 });
    expect(recorded.values()).toEqual({ PartnerTokenHoursLeft: 24 });
  });

  it("fails the invocation when no token can be had, after putting what the stored one has left", async () => {
    const failing = services(token("a", 1.5), { kind: "unavailable", reason: "HTTP 503", status: 503 });
    await expect(refreshPartnerToken({}, failing)).rejects.toThrow(
      "partner token refresh failed: unavailable: HTTP 503",
    );
    expect(recorded.values()).toEqual({ PartnerTokenHoursLeft: 1.5 });
  });

  it("puts 0 hours when there is no token at all and the partner API refuses the key", async () => {
    const refused = services(undefined, { kind: "invalid", code: "AUTH_1001", message: "bad api key" });
    await expect(refreshPartnerToken({}, refused)).rejects.toThrow("invalid: AUTH_1001 bad api key");
    expect(recorded.values()).toEqual({ PartnerTokenHoursLeft: 0 });
  });
});
