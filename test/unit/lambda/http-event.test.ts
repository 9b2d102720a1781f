import { describe, expect, it } from "vitest";
import {
  callbackQueryOf,
  formOrJsonBodyOf,
  type HttpRequest,
  headerOf,
  rawBodyOf,
} from "../../../functions/lambda/http-event";

const request = (overrides: Partial<HttpRequest> & { method?: string } = {}): HttpRequest => ({
  rawQueryString: "",
  headers: {},
  isBase64Encoded: false,
  ...overrides,
  requestContext: { http: { method: overrides.method ?? "GET" } },
});

describe("API Gateway v2 requests", () => {
  it("gives the exact bytes of a Base64-encoded body, and of a text body", () => {
    const bytes = Buffer.from('{"a":"é\\u00e9"}\n', "utf8");
    expect(rawBodyOf(request({ body: bytes.toString("base64"), isBase64Encoded: true }))).toEqual(bytes);
    expect(rawBodyOf(request({ body: bytes.toString("utf8") }))).toEqual(bytes);
    expect(rawBodyOf(request())).toEqual(Buffer.alloc(0));
  });

  it("finds headers whatever the case of their names", () => {
    expect(headerOf(request({ headers: { "Content-Type": "application/json" } }), "content-type")).toBe(
      "application/json",
    );
  });

  it("reads the callback query from a GET, a POST form, a POST JSON object or a POST without body", () => {
    expect(callbackQueryOf(request({ rawQueryString: "a=1&b=%2B" }))).toBe("a=1&b=%2B");
    const form = request({
      method: "POST",
      body: "a=1&b=%2B",
      headers: { "content-type": "application/x-www-form-urlencoded" },
    });
    expect(callbackQueryOf(form)).toBe("a=1&b=%2B");
    const json = request({
      method: "POST",
      body: '{"a":"1","b":"+"}',
      headers: { "content-type": "application/json" },
    });
    expect(callbackQueryOf(json)).toBe("a=1&b=%2B");
    expect(callbackQueryOf(request({ method: "POST", rawQueryString: "a=1" }))).toBe("a=1");
    const nested = request({
      method: "POST",
      body: '{"a":{"b":"1"}}',
      headers: { "content-type": "application/json" },
    });
    expect(callbackQueryOf(nested)).toBeUndefined();
  });

  it("reads a body as JSON when it says so, else as a form", () => {
    expect(
      formOrJsonBodyOf(
        request({ body: '{"order_id":"R1-1"}', headers: { "content-type": "application/json" } }),
      ),
    ).toEqual({
      order_id: "R1-1",
    });
    expect(formOrJsonBodyOf(request({ body: "order_id=R1-1" }))).toEqual({ order_id: "R1-1" });
  });
});
