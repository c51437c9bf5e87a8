import { BlockList, isIP } from "node:net";

/**
 * Where a webhook may be delivered: after DNS resolution, never to an address of the
 * operator's own networks or the host itself. Refused: IANA special-purpose ranges that are not the public
 * internet (RFC 6890 registries: loopback, private, shared CGNAT, link-local with the cloud metadata
 * address 169.254.169.254, documentation, benchmarking, multicast, reserved, unspecified; IPv6 loopback,
 * unspecified, unique-local fc00::/7, link-local, multicast, documentation, discard, and the transition
 * prefixes 6to4, Teredo and NAT64 that can embed any IPv4). An IPv4-mapped IPv6 address (::ffff:a.b.c.d) is
 * judged as its IPv4 address. The operator's allowlist (WEBHOOK_ALLOWED_CIDRS) is checked first.
 */
const REFUSED = new BlockList();
for (const [net, bits] of [
  ["0.0.0.0", 8],
  ["10.0.0.0", 8],
  ["100.64.0.0", 10],
  ["127.0.0.0", 8],
  ["169.254.0.0", 16],
  ["172.16.0.0", 12],
  ["192.0.0.0", 24],
  ["192.0.2.0", 24],
  ["192.88.99.0", 24],
  ["192.168.0.0", 16],
  ["198.18.0.0", 15],
  ["198.51.100.0", 24],
  ["203.0.113.0", 24],
  ["224.0.0.0", 4],
  ["240.0.0.0", 4],
] as const)
  REFUSED.addSubnet(net, bits, "ipv4");
for (const [net, bits] of [
  ["::", 128],
  ["::1", 128],
  ["::", 96],
  ["64:ff9b::", 96],
  ["64:ff9b:1::", 48],
  ["100::", 64],
  ["2001::", 32],
  ["2001:db8::", 32],
  ["2002::", 16],
  ["fc00::", 7],
  ["fe80::", 10],
  ["ff00::", 8],
] as const)
  REFUSED.addSubnet(net, bits, "ipv6");

const MAPPED = /^::ffff:(\d+\.\d+\.\d+\.\d+)$/i;
const MAPPED_HEX = /^::ffff:([0-9a-f]{1,4}):([0-9a-f]{1,4})$/i;

/** `::ffff:7f00:1` and `::ffff:127.0.0.1` → `127.0.0.1`; any other address as it is. */
function unmap(address: string): string {
  const dotted = MAPPED.exec(address)?.[1];
  if (dotted) return dotted;
  const hex = MAPPED_HEX.exec(address);
  if (hex) {
    const [hi, lo] = [Number.parseInt(hex[1] as string, 16), Number.parseInt(hex[2] as string, 16)];
    return [hi >> 8, hi & 255, lo >> 8, lo & 255].join(".");
  }
  return address;
}

export interface AddressPolicy {
  /** Why `address` (an IP literal) may not be reached, or null when it may. */
  refusal(address: string): string | null;
}

export function createAddressPolicy(allowed: BlockList): AddressPolicy {
  return {
    refusal(raw) {
      const address = unmap(raw.replace(/^\[|\]$/g, "").replace(/%.*$/, ""));
      const family = isIP(address);
      if (!family) return `not an IP address: ${raw}`;
      const type = family === 6 ? "ipv6" : "ipv4";
      if (allowed.check(address, type)) return null;
      if (REFUSED.check(address, type)) return `address ${address} is not publicly routable`;
      return null;
    },
  };
}
