import { describe, expect, it } from "vitest";
import { computeFgkey, flattenParams, verifyQueryFgkey } from "../../../functions/gateway/fgkey";

const SECRET = "secret";

const STATUS_PARAMS = {
  mid: "1849705C64",
  order_id: "ORDER-0001",
  currency: "USD",
  amount: "1000.50",
  rescode: "0000",
  resmsg: "Success.",
  transaction_id: "TX0000000000000000000001",
  param1: "a b&c=d?é",
} as const;

function queryOf(entries: ReadonlyArray<readonly [string, string]>): string {
  return new URLSearchParams(entries.map(([key, value]): [string, string] => [key, value])).toString();
}

const signedEntries = (params: Readonly<Record<string, string>>, secret = SECRET) => [
  ...Object.entries(params),
  ["fgkey", computeFgkey(secret, params)] as const,
];

const STATUS_QUERY = queryOf(signedEntries(STATUS_PARAMS));

describe("computeFgkey", () => {
  it("matches a hash computed with sha256sum", () => {
    // printf '%s' 'secret?a=1&b=2' | sha256sum
    expect(computeFgkey(SECRET, { a: "1", b: "2" })).toBe(
      "47738ebf8a9070d6509c697b96d5b65fceae00b2d27e6cce70b8a0e90134dde4",
    );
  });

  it("does not depend on the order of the keys", () => {
    expect(computeFgkey(SECRET, { b: "2", a: "1" })).toBe(computeFgkey(SECRET, { a: "1", b: "2" }));
  });

  it("hashes values as they are, not URL-encoded", () => {
    // printf '%s' 'secret?name=홍 길동&url=https://m.example/s?x=1&y=2' | sha256sum
    expect(computeFgkey(SECRET, { url: "https://m.example/s?x=1&y=2", name: "홍 길동" })).toBe(
      "63b5d23bcad0dabe0733217a43929b224a6a8765fbcb36ee8435a859b368dcaa",
    );
  });

  it("changes with the secret and with any value", () => {
    const base = computeFgkey(SECRET, { a: "1", b: "2" });
    expect(computeFgkey("other", { a: "1", b: "2" })).not.toBe(base);
    expect(computeFgkey(SECRET, { a: "1", b: "3" })).not.toBe(base);
  });
});

describe("verifyQueryFgkey", () => {
  it("accepts an untampered status_url query string", () => {
    expect(verifyQueryFgkey(SECRET, STATUS_QUERY)).toBe(true);
    expect(verifyQueryFgkey(SECRET, `?${STATUS_QUERY}`)).toBe(true);
  });

  it("accepts the parameters in any order", () => {
    expect(verifyQueryFgkey(SECRET, queryOf(signedEntries(STATUS_PARAMS).reverse()))).toBe(true);
  });

  it("rejects any altered value", () => {
    for (const key of Object.keys(STATUS_PARAMS)) {
      const entries = signedEntries(STATUS_PARAMS).map(([name, value]) =>
        name === key ? ([name, `${value}0`] as const) : ([name, value] as const),
      );
      expect(verifyQueryFgkey(SECRET, queryOf(entries)), key).toBe(false);
    }
  });

  it("rejects an added parameter", () => {
    expect(verifyQueryFgkey(SECRET, `${STATUS_QUERY}&status=SALE`)).toBe(false);
    expect(verifyQueryFgkey(SECRET, `${STATUS_QUERY}&extra=`)).toBe(false);
  });

  it("rejects a removed parameter", () => {
    for (const key of Object.keys(STATUS_PARAMS)) {
      const entries = signedEntries(STATUS_PARAMS).filter(([name]) => name !== key);
      expect(verifyQueryFgkey(SECRET, queryOf(entries)), key).toBe(false);
    }
  });

  it("rejects a duplicated parameter, even with the same value", () => {
    expect(verifyQueryFgkey(SECRET, `${STATUS_QUERY}&amount=1000.50`)).toBe(false);
    expect(verifyQueryFgkey(SECRET, `amount=1.00&${STATUS_QUERY}`)).toBe(false);
  });

  it("rejects a missing, empty, duplicated or altered fgkey", () => {
    const unsigned = queryOf(Object.entries(STATUS_PARAMS));
    const fgkey = computeFgkey(SECRET, STATUS_PARAMS);
    expect(verifyQueryFgkey(SECRET, unsigned)).toBe(false);
    expect(verifyQueryFgkey(SECRET, `${unsigned}&fgkey=`)).toBe(false);
    expect(verifyQueryFgkey(SECRET, `${STATUS_QUERY}&fgkey=${fgkey}`)).toBe(false);
    expect(verifyQueryFgkey(SECRET, `${unsigned}&fgkey=${fgkey.slice(0, -1)}`)).toBe(false);
    expect(
      verifyQueryFgkey(SECRET, `${unsigned}&fgkey=${fgkey.slice(0, -1)}${fgkey.endsWith("0") ? "1" : "0"}`),
    ).toBe(false);
  });

  it("rejects a query signed with another secret", () => {
    expect(verifyQueryFgkey("other-secret", STATUS_QUERY)).toBe(false);
    expect(verifyQueryFgkey(SECRET, queryOf(signedEntries(STATUS_PARAMS, "other-secret")))).toBe(false);
  });

  it("treats parameter names like constructor or __proto__ as ordinary parameters", () => {
    const params = { ...STATUS_PARAMS, constructor: "x", toString: "y" };
    expect(verifyQueryFgkey(SECRET, queryOf(signedEntries(params)))).toBe(true);
    const withProto = queryOf([...Object.entries(STATUS_PARAMS), ["__proto__", "z"]]);
    const protoKey = computeFgkey(
      SECRET,
      Object.fromEntries([...Object.entries(STATUS_PARAMS), ["__proto__", "z"]]),
    );
    expect(verifyQueryFgkey(SECRET, `${withProto}&fgkey=${protoKey}`)).toBe(true);
    // Added to a signed query, it is a change like any other.
    expect(verifyQueryFgkey(SECRET, `${STATUS_QUERY}&__proto__=z`)).toBe(false);
  });
});

describe("flattenParams", () => {
  it("flattens nested objects into dotted keys with string values", () => {
    expect(
      flattenParams({
        mid: "1849705C64",
        payment: { amount: "10.00", installment: 3, recurring: true },
        buyer: { address: { city: "Seoul" } },
      }),
    ).toEqual({
      mid: "1849705C64",
      "payment.amount": "10.00",
      "payment.installment": "3",
      "payment.recurring": "true",
      "buyer.address.city": "Seoul",
    });
  });

  it("turns arrays into zero-based index keys and drops empty containers, null and undefined", () => {
    expect(
      flattenParams({
        product: [
          { name: "A", quantity: "1" },
          { name: "B", quantity: "2" },
        ],
        tags: ["x", "y"],
        surcharge: [],
        other_param: {},
        shop: null,
        lang: undefined,
      }),
    ).toEqual({
      "product.0.name": "A",
      "product.0.quantity": "1",
      "product.1.name": "B",
      "product.1.quantity": "2",
      "tags.0": "x",
      "tags.1": "y",
    });
  });

  it("gives the parameter set whose fgkey verifies as a query string", () => {
    const flat = flattenParams({ payment: { amount: "10.00", currency: "USD" }, product: [{ name: "a&b" }] });
    expect(verifyQueryFgkey(SECRET, queryOf(signedEntries(flat)))).toBe(true);
  });
});
