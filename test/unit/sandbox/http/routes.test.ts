import { describe, expect, expectTypeOf, it } from "vitest";
import { okReply, partnerStyle, rescodeStyle } from "../../../../sandbox/http/replies";
import {
  defineRoute,
  type PathParams,
  RouteTable,
  styleOf,
  styleOfPath,
} from "../../../../sandbox/http/routes";

const route = (name: string, method: "GET" | "POST" | "PUT" | "DELETE", path: string) =>
  defineRoute({ name, method, path, auth: "basic", handler: () => okReply() });

describe("RouteTable", () => {
  const table = new RouteTable();
  table.add(route("cancel", "POST", "/v1/payments/:transaction_id/cancel"));
  table.add(route("retrieve", "POST", "/v1/payments/retrieve"));
  table.add(route("receipt", "POST", "/v1/payments/retrieve/receipt-url/:transaction_id"));
  table.add(route("recurring.delete", "POST", "/v1/payments/recurring/:recurring_id/delete"));
  table.add(route("webhooks.list", "GET", "/api/v1/partner/merchants/:merchantId/webhooks"));
  table.add(route("webhooks.create", "POST", "/api/v1/partner/merchants/:merchantId/webhooks"));

  it("matches literal paths and decodes parameters", () => {
    expect(table.match("POST", "/v1/payments/retrieve")).toMatchObject({
      kind: "found",
      route: { name: "retrieve" },
    });
    expect(table.match("POST", "/v1/payments/TX%2F1/cancel")).toMatchObject({
      kind: "found",
      route: { name: "cancel" },
      params: { transaction_id: "TX/1" },
    });
    expect(table.match("GET", "/api/v1/partner/merchants/M1/webhooks")).toMatchObject({
      params: { merchantId: "M1" },
    });
  });

  it("tells a wrong method from an unknown path", () => {
    expect(table.match("GET", "/v1/payments/retrieve")).toEqual({
      kind: "method-not-allowed",
      allowed: ["POST"],
    });
    expect(table.match("DELETE", "/api/v1/partner/merchants/M1/webhooks")).toEqual({
      kind: "method-not-allowed",
      allowed: ["GET", "POST"],
    });
    for (const path of [
      "/v1/payments",
      "/v1/payments/retrieve/",
      "/v1/payments//cancel",
      "/v1/payments/%E0%A4%A/cancel",
    ]) {
      expect(table.match("POST", path)).toEqual({ kind: "not-found" });
    }
  });

  it("prefers literal segments over parameters", () => {
    const literalFirst = new RouteTable();
    literalFirst.add(route("by-id", "POST", "/v1/x/:id"));
    literalFirst.add(route("special", "POST", "/v1/x/special"));
    expect(literalFirst.match("POST", "/v1/x/special")).toMatchObject({ route: { name: "special" } });
    expect(literalFirst.match("POST", "/v1/x/other")).toMatchObject({ route: { name: "by-id" } });
  });

  it("refuses duplicate names, colliding shapes and relative paths", () => {
    expect(() => table.add(route("cancel", "POST", "/v1/other"))).toThrow(/duplicate route name/);
    expect(() => table.add(route("cancel2", "POST", "/v1/payments/:id/cancel"))).toThrow(/collides/);
    expect(() => table.add(route("relative", "POST", "v1/x"))).toThrow(/must start with/);
    expect(() => table.add(route("other-method", "GET", "/v1/payments/:id/cancel"))).not.toThrow();
  });

  it("speaks the partner dialect on partner routes and paths", () => {
    expect(styleOf(defineRoute({ ...route("p", "GET", "/api/v1/partner/x"), auth: "partner-bearer" }))).toBe(
      partnerStyle,
    );
    expect(styleOf(route("r", "POST", "/v1/x"))).toBe(rescodeStyle);
    expect(styleOfPath("/api/v1/partner/anything")).toBe(partnerStyle);
    expect(styleOfPath("/v1/anything")).toBe(rescodeStyle);
  });

  it("types path parameters from the pattern", () => {
    expectTypeOf<PathParams<"/v1/payments/:transaction_id/cancel">>().toMatchTypeOf<{
      transaction_id: string;
    }>();
    expectTypeOf<PathParams<"/a/:x/b/:y">>().toMatchTypeOf<{ x: string; y: string }>();
    defineRoute({
      name: "typed",
      method: "POST",
      path: "/v1/payments/recurring/:recurring_id/adjust",
      auth: "basic",
      handler: (request, context) => {
        expectTypeOf(request.params.recurring_id).toEqualTypeOf<string>();
        // @ts-expect-error: only the pattern's parameters exist
        void request.params.transaction_id;
        expectTypeOf(context.merchant.mid).toEqualTypeOf<string>();
        return okReply();
      },
    });
  });
});
