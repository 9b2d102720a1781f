import type { LookupAddress } from "node:dns";
import { describe, expect, it } from "vitest";
import {
  createHttpsWebhookTransport,
  type Resolve,
  urlFormRefusal,
  WEBHOOK_URL_RULES,
} from "../../../functions/adapters/outside/https-webhook-transport";

// The URL rules without a socket (the unit tier fails any): every refusal here is decided before a connection.

const PRIVATE = "must not resolve to a private, loopback, link-local or reserved address";
const answers =
  (...sequence: (readonly LookupAddress[])[]): Resolve =>
  async () =>
    sequence.length > 1 ? (sequence.shift() ?? []) : (sequence[0] ?? []);
const v4 = (address: string): LookupAddress => ({ address, family: 4 });
const v6 = (address: string): LookupAddress => ({ address, family: 6 });
const endpoint = (url: string) => ({
  url,
  secret: "whsec_eA==",
  signature_scheme: "standard_webhooks" as const,
});
const event = { event_id: "e1", type: "charge.succeeded" };

describe("the URL rules", () => {
  it("take https only outside local mode, http too in local mode; never credentials", () => {
    expect(urlFormRefusal("http://hooks.example.com/x", WEBHOOK_URL_RULES.public)).toBe("must use https");
    expect(urlFormRefusal("https://hooks.example.com/x", WEBHOOK_URL_RULES.public)).toBeUndefined();
    expect(urlFormRefusal("http://127.0.0.1:4000/x", WEBHOOK_URL_RULES.local)).toBeUndefined();
    expect(urlFormRefusal("ftp://hooks.example.com/x", WEBHOOK_URL_RULES.local)).toBe(
      "must be an http(s) URL",
    );
    expect(urlFormRefusal("https://a:b@hooks.example.com/", WEBHOOK_URL_RULES.public)).toBe(
      "must not carry credentials",
    );
    expect(urlFormRefusal(`https://hooks.example.com/${"a".repeat(2048)}`, WEBHOOK_URL_RULES.public)).toMatch(
      /at most 2048/,
    );
  });

  it("refuse a host when any address it resolves to is not public, IPv4-mapped IPv6 included", async () => {
    const cases: [readonly LookupAddress[], string | undefined][] = [
      [[v4("93.184.216.34")], undefined],
      [[v6("2606:2800:220:1::1"), v4("93.184.216.34")], undefined],
      [[v4("93.184.216.34"), v4("10.0.0.7")], PRIVATE],
      [[v4("127.0.0.1")], PRIVATE],
      [[v6("::ffff:169.254.169.254")], PRIVATE],
      [[v6("::ffff:a9fe:a9fe")], PRIVATE],
      [[v6("fe80::1")], PRIVATE],
      [[v6("fd00:ec2::254")], PRIVATE],
      [[], "must resolve to a public address (the host does not resolve)"],
    ];
    for (const [addresses, refusal] of cases) {
      const transport = createHttpsWebhookTransport({
        rules: WEBHOOK_URL_RULES.public,
        resolve: answers(addresses),
      });
      expect(await transport.refusalOf("https://hooks.example.com/x"), JSON.stringify(addresses)).toBe(
        refusal,
      );
    }
    const failing = createHttpsWebhookTransport({
      rules: WEBHOOK_URL_RULES.public,
      resolve: () => Promise.reject(new Error("ENOTFOUND")),
    });
    expect(await failing.refusalOf("https://nowhere.example/x")).toMatch(/does not resolve/);
  });

  it("judge IP literals without asking DNS", async () => {
    const transport = createHttpsWebhookTransport({
      rules: WEBHOOK_URL_RULES.public,
      resolve: () => Promise.reject(new Error("DNS must not be asked")),
    });
    for (const url of [
      "https://127.0.0.1/x",
      "https://2130706433/x",
      "https://0x7f.1/x",
      "https://[::1]/x",
      "https://[::ffff:10.0.0.1]/x",
      "https://[fd00:ec2::254]/x",
      "https://169.254.169.254/latest/meta-data/",
    ])
      expect(await transport.refusalOf(url), url).toBe(PRIVATE);
    expect(await transport.refusalOf("https://8.8.8.8/x")).toBeUndefined();
    expect(await transport.refusalOf("https://[2606:4700::1111]/x")).toBeUndefined();
  });

  it("check again at every send: a host that now resolves to a private address (DNS rebinding) is not connected to", async () => {
    const transport = createHttpsWebhookTransport({
      rules: WEBHOOK_URL_RULES.public,
      resolve: answers([v4("93.184.216.34")], [v4("169.254.169.254")]),
    });
    expect(await transport.refusalOf("https://rebind.example.com/x")).toBeUndefined();
    // The unit tier fails any socket: the refusal comes before one.
    expect(await transport.post(endpoint("https://rebind.example.com/x"), "{}", event)).toEqual({
      kind: "failed",
      error: `the host ${PRIVATE}`,
    });
    expect(await transport.post(endpoint("http://8.8.8.8/x"), "{}", event)).toEqual({
      kind: "failed",
      error: "the URL must use https",
    });
  });
});
