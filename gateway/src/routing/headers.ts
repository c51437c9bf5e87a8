/** RFC 9110 §7.6.1 hop-by-hop headers, plus what the gateway itself consumes or undici sets. */
const ALWAYS_DROPPED = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "proxy-authenticate",
  "proxy-authorization",
  "te",
  "trailer",
  "transfer-encoding",
  "upgrade",
  "x-gateway-api-key",
  // undici refuses `expect`; the gateway answers 100-continue itself.
  "expect",
  // The provider's own host is set from its origin.
  "host",
]);

/** On the way back only hop-by-hop headers go: Node frames the body for its own connection. */
const HOP_BY_HOP_RESPONSE = new Set([
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "trailer",
  "te",
]);

function connectionListed(raw: readonly string[]): Set<string> {
  const listed = new Set<string>();
  for (let i = 0; i < raw.length; i += 2) {
    if ((raw[i] as string).toLowerCase() === "connection") {
      for (const name of (raw[i + 1] as string).split(",")) listed.add(name.trim().toLowerCase());
    }
  }
  return listed;
}

/** Raw `[name, value, …]` headers (case kept) minus hop-by-hop and every header named in Connection. */
export function forwardableHeaders(raw: readonly string[]): string[] {
  const listed = connectionListed(raw);
  const out: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const lower = name.toLowerCase();
    if (ALWAYS_DROPPED.has(lower) || listed.has(lower)) continue;
    out.push(name, raw[i + 1] as string);
  }
  return out;
}

/** Provider response headers as latin1 strings (byte-identical), minus hop-by-hop ones. */
export function responseHeaders(raw: readonly Buffer[]): string[] {
  const strings = raw.map((b) => b.toString("latin1"));
  const listed = connectionListed(strings);
  const out: string[] = [];
  for (let i = 0; i < strings.length; i += 2) {
    const name = strings[i] as string;
    const lower = name.toLowerCase();
    if (HOP_BY_HOP_RESPONSE.has(lower) || listed.has(lower)) continue;
    out.push(name, strings[i + 1] as string);
  }
  return out;
}
