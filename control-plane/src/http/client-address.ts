import { isIP } from "node:net";

/**
 * The key per-address limits count a client under: an IPv4 address as it is (an IPv4-mapped IPv6 one as
 * its IPv4), an IPv6 address as its /64 prefix (`2001:db8:5:6::/64`). One subscriber or host is given a
 * whole /64 (RFC 6177), so counting full IPv6 addresses let a client reset every per-address limit by
 * rotating addresses inside its own prefix. Anything else (no address) is kept as given.
 */
export function clientAddressKey(ip: string): string {
  if (isIP(ip) !== 6) return ip;
  let s = ip.toLowerCase().split("%")[0] as string;
  // A trailing dotted quad is the last two groups.
  const quad = /(\d+)\.(\d+)\.(\d+)\.(\d+)$/.exec(s);
  if (quad) {
    const [a, b, c, d] = quad.slice(1).map(Number) as [number, number, number, number];
    s = `${s.slice(0, quad.index)}${((a << 8) | b).toString(16)}:${((c << 8) | d).toString(16)}`;
  }
  const g = expand(s);
  if (!g) return ip;
  if (g.slice(0, 5).every((x) => x === 0) && g[5] === 0xffff) {
    const [hi, lo] = [g[6] as number, g[7] as number];
    return `${hi >> 8}.${hi & 0xff}.${lo >> 8}.${lo & 0xff}`;
  }
  return `${g
    .slice(0, 4)
    .map((x) => x.toString(16))
    .join(":")}::/64`;
}

/** The eight 16-bit groups of an IPv6 address in hex notation (no dotted quad), or null. */
function expand(s: string): number[] | null {
  const halves = s.split("::");
  if (halves.length > 2) return null;
  const part = (h: string | undefined) => (h ? h.split(":").map((g) => Number.parseInt(g, 16)) : []);
  const head = part(halves[0]);
  const tail = part(halves[1]);
  const zeros = halves.length === 2 ? 8 - head.length - tail.length : 0;
  const groups = [...head, ...Array<number>(Math.max(0, zeros)).fill(0), ...tail];
  return groups.length === 8 && groups.every((g) => Number.isInteger(g) && g >= 0 && g <= 0xffff)
    ? groups
    : null;
}
