import { BlockList, isIP } from "node:net";

// Where a webhook may go outside local mode (README, Webhooks, SSRF): only to a public unicast address. Refused are
// the unspecified, loopback, private (RFC 1918, fc00::/7), shared (CGNAT 100.64/10), link-local (169.254/16 with the
// cloud metadata service 169.254.169.254, fe80::/10), multicast, reserved and documentation ranges, and the IPv6
// forms that carry an IPv4 address (IPv4-mapped ::ffff:0:0/96, IPv4-compatible ::/96, NAT64 64:ff9b::/96, 6to4
// 2002::/16), which are judged by the IPv4 address inside them.

const IPV4_REFUSED: readonly [string, number][] = [
  ["0.0.0.0", 8], // "this network", the unspecified address
  ["10.0.0.0", 8],
  ["100.64.0.0", 10], // shared address space (CGNAT; also Alibaba Cloud's metadata 100.100.100.200)
  ["127.0.0.0", 8],
  ["169.254.0.0", 16], // link-local: the cloud metadata service 169.254.169.254
  ["172.16.0.0", 12],
  ["192.0.0.0", 24], // IETF protocol assignments
  ["192.0.2.0", 24], // documentation
  ["192.88.99.0", 24], // 6to4 relay anycast
  ["192.168.0.0", 16],
  ["198.18.0.0", 15], // benchmarking
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4], // multicast
  ["240.0.0.0", 4], // reserved, and the broadcast address
];

const IPV6_REFUSED: readonly [string, number][] = [
  ["::", 128], // unspecified
  ["::1", 128], // loopback
  ["100::", 64], // discard-only
  ["2001::", 23], // IETF protocol assignments (Teredo, ORCHID, …)
  ["2001:db8::", 32], // documentation
  ["fc00::", 7], // unique local (AWS's metadata service fd00:ec2::254 among them)
  ["fe80::", 10], // link-local
  ["fec0::", 10], // site-local (deprecated)
  ["ff00::", 8], // multicast
];

const refusedV4 = new BlockList();
for (const [network, prefix] of IPV4_REFUSED) refusedV4.addSubnet(network, prefix, "ipv4");
const refusedV6 = new BlockList();
for (const [network, prefix] of IPV6_REFUSED) refusedV6.addSubnet(network, prefix, "ipv6");

/** The 16 bytes of an IPv6 address (with or without an embedded dotted IPv4 tail). */
function ipv6Bytes(address: string): number[] {
  let text = address.toLowerCase().split("%")[0] ?? "";
  const dotted = /(\d+\.\d+\.\d+\.\d+)$/.exec(text);
  if (dotted?.[1] !== undefined) {
    const [a = 0, b = 0, c = 0, d = 0] = dotted[1].split(".").map(Number);
    text = `${text.slice(0, dotted.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const [head = "", tail] = text.split("::");
  const groups = (part: string) =>
    part === "" ? [] : part.split(":").map((group) => Number.parseInt(group, 16));
  const left = groups(head);
  const right = tail === undefined ? [] : groups(tail);
  const words = [...left, ...Array<number>(8 - left.length - right.length).fill(0), ...right];
  return words.flatMap((word) => [word >> 8, word & 0xff]);
}

const dottedOf = (bytes: readonly number[]) => bytes.join(".");

/** The IPv4 address an IPv6 address stands for or carries (mapped, compatible, NAT64, 6to4), if any. */
export function embeddedIpv4(address: string): string | undefined {
  const bytes = ipv6Bytes(address);
  const zeros = (from: number, to: number) => bytes.slice(from, to).every((byte) => byte === 0);
  // ::ffff:a.b.c.d (mapped) and ::a.b.c.d (compatible; :: and ::1 are judged as IPv6).
  if (zeros(0, 10) && bytes[10] === 0xff && bytes[11] === 0xff) return dottedOf(bytes.slice(12));
  if (zeros(0, 12) && !zeros(12, 15)) return dottedOf(bytes.slice(12));
  // 64:ff9b::a.b.c.d (NAT64's well-known prefix)
  if (bytes[0] === 0 && bytes[1] === 0x64 && bytes[2] === 0xff && bytes[3] === 0x9b && zeros(4, 12))
    return dottedOf(bytes.slice(12));
  // 2002:AABB:CCDD::/48 (6to4)
  if (bytes[0] === 0x20 && bytes[1] === 0x02) return dottedOf(bytes.slice(2, 6));
  return undefined;
}

/** Whether a webhook may connect to this IP address outside local mode (false for anything but an IP address). */
export function isPublicAddress(address: string): boolean {
  const bare = address.replace(/^\[|\]$/g, "").split("%")[0] ?? "";
  const family = isIP(bare);
  if (family === 4) return !refusedV4.check(bare, "ipv4");
  if (family !== 6) return false;
  const inner = embeddedIpv4(bare);
  if (inner !== undefined) return isPublicAddress(inner);
  return !refusedV6.check(bare, "ipv6");
}
