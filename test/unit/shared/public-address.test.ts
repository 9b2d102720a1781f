import { describe, expect, it } from "vitest";
import { embeddedIpv4, isPublicAddress } from "../../../functions/shared/public-address";

describe("isPublicAddress", () => {
  it("takes public unicast IPv4 and IPv6 addresses", () => {
    for (const address of [
      "8.8.8.8",
      "1.1.1.1",
      "100.63.255.255",
      "100.128.0.1",
      "172.15.255.255",
      "172.32.0.1",
      "169.253.255.255",
      "2606:4700:4700::1111",
      "2a00:1450:4001:82b::200e",
      "::ffff:8.8.8.8",
      "64:ff9b::808:808",
      "2002:0808:0808::1",
    ])
      expect(isPublicAddress(address), address).toBe(true);
  });

  it("refuses private, loopback, link-local, unspecified, CGNAT, metadata, multicast and reserved IPv4", () => {
    for (const address of [
      "0.0.0.0",
      "10.0.0.1",
      "10.255.255.255",
      "100.64.0.1",
      "100.100.100.200",
      "127.0.0.1",
      "127.255.0.9",
      "169.254.169.254",
      "169.254.0.1",
      "172.16.0.1",
      "172.31.255.255",
      "192.168.1.1",
      "192.0.0.170",
      "198.18.0.1",
      "224.0.0.1",
      "240.0.0.1",
      "255.255.255.255",
    ])
      expect(isPublicAddress(address), address).toBe(false);
  });

  it("refuses IPv6 loopback, unspecified, unique-local (fc00::/7, AWS metadata), link-local and multicast", () => {
    for (const address of [
      "::1",
      "::",
      "[::1]",
      "fc00::1",
      "fd00:ec2::254",
      "fdff:ffff::1",
      "fe80::1",
      "fe80::1%eth0",
      "febf::1",
      "ff02::1",
      "2001:db8::1",
      "100::1",
    ])
      expect(isPublicAddress(address), address).toBe(false);
  });

  it("judges IPv6 forms that carry an IPv4 address (mapped, compatible, NAT64, 6to4) by that address", () => {
    for (const address of [
      "::ffff:127.0.0.1",
      "::ffff:7f00:1",
      "::ffff:10.0.0.1",
      "::ffff:a9fe:a9fe",
      "::ffff:192.168.0.1",
      "0:0:0:0:0:ffff:100.64.0.1",
      "::10.0.0.1",
      "::a00:1",
      "64:ff9b::a9fe:a9fe",
      "64:ff9b::127.0.0.1",
      "2002:c0a8:0101::1",
      "2002:7f00:0001::",
    ])
      expect(isPublicAddress(address), address).toBe(false);
    expect(embeddedIpv4("::ffff:7f00:1")).toBe("127.0.0.1");
    expect(embeddedIpv4("64:ff9b::a9fe:a9fe")).toBe("169.254.169.254");
    expect(embeddedIpv4("2002:c0a8:0101::1")).toBe("192.168.1.1");
    expect(embeddedIpv4("2606:4700::1111")).toBeUndefined();
  });

  it("refuses anything that is not an IP address", () => {
    for (const text of ["localhost", "example.com", "", "127.0.0.1.nip.io", "999.1.1.1", "http://8.8.8.8/"])
      expect(isPublicAddress(text), text).toBe(false);
  });
});
