import { describe, expect, it } from "vitest";
import { checkoutLinksOf, createPageLinks } from "../../../functions/pages/shared/page-links";

// Our pages' links: signed claims that a page reads back only if we signed them, for its scope, before they expire.

let now = new Date("2027-01-10T00:00:00.000Z");
const links = (keys: readonly string[] = ["key-one"]) =>
  createPageLinks({ keys, baseUrl: "https://pages.example/", now: () => now });

const tokenOf = (url: string) => decodeURIComponent(new URL(url).pathname.split("/")[2] ?? "");

describe("page links", () => {
  it("read back what they were signed with, for their scope only", () => {
    const signer = links();
    const token = signer.sign({
      s: "portal",
      sub: "acct_42",
      exp: signer.expiry(60_000),
      ret: "https://x.example",
    });
    expect(signer.read(token, "portal")).toEqual({
      kind: "valid",
      claims: {
        s: "portal",
        sub: "acct_42",
        exp: Date.parse("2027-01-10T00:01:00.000Z") / 1000,
        ret: "https://x.example",
      },
    });
    expect(signer.read(token, "checkout")).toEqual({ kind: "invalid" });
  });

  it("expire at their instant", () => {
    const signer = links();
    const token = signer.sign({ s: "checkout", sub: "sub_1", exp: signer.expiry(60_000) });
    now = new Date(now.getTime() + 59_999);
    expect(signer.read(token, "checkout").kind).toBe("valid");
    now = new Date(now.getTime() + 1);
    // Still what we signed: a page may say what expired.
    expect(signer.read(token, "checkout")).toMatchObject({ kind: "expired", claims: { sub: "sub_1" } });
  });

  it("refuse a changed claim, signature or key, and anything not a link", () => {
    const signer = links();
    const token = signer.sign({ s: "checkout", sub: "sub_1", exp: signer.expiry(60_000) });
    const [payload = "", signature = ""] = token.split(".");
    const changed = Buffer.from(JSON.stringify({ s: "checkout", sub: "sub_2", exp: 9e9 })).toString(
      "base64url",
    );
    for (const forged of [
      `${changed}.${signature}`,
      `${payload}.${signature.slice(1)}`,
      `${payload}.`,
      payload,
      `${token}.extra`,
      "",
      "%%%.%%%",
    ]) {
      expect(signer.read(forged, "checkout"), forged).toEqual({ kind: "invalid" });
    }
    expect(links(["another-key"]).read(token, "checkout")).toEqual({ kind: "invalid" });
  });

  it("verify under every key of a rotation and sign under the first", () => {
    const old = links(["old-key"]);
    const token = old.sign({ s: "checkout", sub: "sub_1", exp: old.expiry(60_000) });
    const rotating = links(["new-key", "old-key"]);
    expect(rotating.read(token, "checkout").kind).toBe("valid");
    const fresh = rotating.sign({ s: "checkout", sub: "sub_1", exp: rotating.expiry(60_000) });
    expect(links(["new-key"]).read(fresh, "checkout").kind).toBe("valid");
    expect(() => links([])).toThrow("page links need a key");
  });

  it("give a form token bound to the link, checked under every key", () => {
    const signer = links(["k1", "k0"]);
    const formToken = signer.formToken("link-a");
    expect(signer.formTokenMatches("link-a", formToken)).toBe(true);
    expect(signer.formTokenMatches("link-b", formToken)).toBe(false);
    expect(signer.formTokenMatches("link-a", "")).toBe(false);
    expect(links(["k0"]).formTokenMatches("link-a", links(["k0"]).formToken("link-a"))).toBe(true);
  });

  it("make a checkout's page and return URLs under the pages' base, valid until the checkout expires", () => {
    const signer = links();
    const checkout = checkoutLinksOf(signer);
    // An end within a second: the link holds to the whole second before it, never past the checkout.
    const expiresAt = new Date(now.getTime() + 30 * 60_000 + 500).toISOString();
    const page = checkout.pageUrl("sub_abc", expiresAt);
    expect(page).toMatch(/^https:\/\/pages\.example\/pay\/[\w-]+\.[\w-]+$/);
    expect(checkout.returnUrl("sub_abc", expiresAt)).toBe(`${page}/return`);
    expect(signer.read(tokenOf(page), "checkout")).toMatchObject({
      kind: "valid",
      claims: { sub: "sub_abc", exp: now.getTime() / 1000 + 30 * 60 },
    });
  });
});
