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
    if ((raw[i] as string).toLowerCase() === "connection") addConnectionNames(listed, raw[i + 1] as string);
  }
  return listed;
}

function addConnectionNames(listed: Set<string>, value: string): void {
  for (const name of value.split(",")) listed.add(name.trim().toLowerCase());
}

/** What the gateway reads from a request, gathered from the raw headers in one pass. */
export interface RequestHeaders {
  /** `x-gateway-api-key`; null when sent more than once (never a valid key). */
  apiKey: string | null | undefined;
  /** Every `idempotency-key` value, in order: more than one is the spec's "not an array" 400. */
  idempotencyKeys: string[];
  /** Whether a request body follows (a Transfer-Encoding, or a Content-Length other than 0). */
  hasBody: boolean;
  /** Raw `[name, value, …]` (case kept) minus hop-by-hop headers, the key header and Connection-named ones. */
  forward: string[];
}

/**
 * One pass over `rawHeaders` instead of Node's parsed `req.headers`, which would be built (and its
 * duplicates joined) on every request only to be read for three fields.
 */
export function readRequestHeaders(raw: readonly string[]): RequestHeaders {
  const out: RequestHeaders = { apiKey: undefined, idempotencyKeys: [], hasBody: false, forward: [] };
  let listed: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    const value = raw[i + 1] as string;
    const lower = name.toLowerCase();
    switch (lower) {
      case "x-gateway-api-key":
        out.apiKey = out.apiKey === undefined ? value : null;
        continue;
      case "idempotency-key":
        out.idempotencyKeys.push(value);
        break;
      case "content-length":
        if (value !== "0") out.hasBody = true;
        break;
      case "transfer-encoding":
        out.hasBody = true;
        continue;
      case "connection":
        listed ??= new Set();
        addConnectionNames(listed, value);
        continue;
    }
    if (!ALWAYS_DROPPED.has(lower)) out.forward.push(name, value);
  }
  if (listed) {
    const kept: string[] = [];
    for (let i = 0; i < out.forward.length; i += 2) {
      const name = out.forward[i] as string;
      if (!listed.has(name.toLowerCase())) kept.push(name, out.forward[i + 1] as string);
    }
    out.forward = kept;
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
