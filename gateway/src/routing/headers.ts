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
  // What a client says about the hops before the gateway cannot be trusted (a forged address, host or
  // scheme would reach the provider as if the gateway vouched for it): dropped, and the gateway's own set.
  "forwarded",
  "x-forwarded-for",
  "x-forwarded-host",
  "x-forwarded-proto",
  "x-forwarded-port",
  "x-forwarded-prefix",
  "x-real-ip",
]);

/** On the way back only hop-by-hop headers go: Node frames the body for its own connection. */
const HOP_BY_HOP_RESPONSE = [
  "connection",
  "keep-alive",
  "proxy-connection",
  "transfer-encoding",
  "upgrade",
  "trailer",
  "te",
];

/**
 * Whether latin1 bytes spell `lower` (lower-case ASCII) in any case. Folding A-Z alone agrees with
 * decoding and `toLowerCase()`, as no other latin1 character lower-cases into ASCII, and spares decoding
 * the names and values that are dropped anyway.
 */
function isNamed(bytes: Buffer, lower: string): boolean {
  if (bytes.length !== lower.length) return false;
  for (let i = 0; i < lower.length; i++) {
    const c = bytes[i] as number;
    if ((c >= 0x41 && c <= 0x5a ? c + 0x20 : c) !== lower.charCodeAt(i)) return false;
  }
  return true;
}

/**
 * Adds the names a Connection value lists, creating the set on first need. The usual `keep-alive` only
 * names a header that is dropped anyway, so it needs none. (`close` still does: a header literally
 * named `Close` would otherwise be kept.)
 */
function addConnectionNames(listed: Set<string> | undefined, value: string): Set<string> | undefined {
  if (value.length === 10 && value.toLowerCase() === "keep-alive") return listed;
  listed ??= new Set();
  for (const name of value.split(",")) listed.add(name.trim().toLowerCase());
  return listed;
}

/** `raw` without the headers whose lower-cased names are `listed`, order and case kept. */
function dropListed(raw: string[], listed: Set<string>): string[] {
  const kept: string[] = [];
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as string;
    if (!listed.has(name.toLowerCase())) kept.push(name, raw[i + 1] as string);
  }
  return kept;
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

/** The connection a request arrived on, as the gateway itself saw it. */
export interface ClientHop {
  /** The peer's address (the client's, or the load balancer's in front of the gateway). */
  address: string | undefined;
  /** Whether the connection to the gateway was TLS. */
  encrypted: boolean;
}

/**
 * One pass over `rawHeaders` instead of Node's parsed `req.headers`, which would be built (and its
 * duplicates joined) on every request only to be read for three fields. With `hop`, the gateway's own
 * `X-Forwarded-For`, `-Proto` and `-Host` close the forwarded list, in place of any the client sent.
 */
export function readRequestHeaders(raw: readonly string[], hop?: ClientHop): RequestHeaders {
  const out: RequestHeaders = { apiKey: undefined, idempotencyKeys: [], hasBody: false, forward: [] };
  let listed: Set<string> | undefined;
  let host: string | undefined;
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
        listed = addConnectionNames(listed, value);
        continue;
      case "host":
        host = value;
        continue;
    }
    if (!ALWAYS_DROPPED.has(lower)) out.forward.push(name, value);
  }
  if (listed) out.forward = dropListed(out.forward, listed);
  if (hop) {
    if (hop.address) out.forward.push("x-forwarded-for", hop.address);
    out.forward.push("x-forwarded-proto", hop.encrypted ? "https" : "http");
    if (host !== undefined) out.forward.push("x-forwarded-host", host);
  }
  return out;
}

/**
 * The protocol an upgrade request asks for (RFC 9110 §7.8: Upgrade is a comma-separated list, and a header
 * sent twice is one list). Any token naming WebSocket (case-insensitive, with or without a version) makes
 * it a WebSocket, forwarded as `websocket` alone: otherwise `Upgrade: websocket, x` or a second Upgrade
 * header would reach a provider that picks WebSocket while the gateway, seeing another protocol, billed by
 * time only and counted no message (docs/gateway.md, "WebSocket billing rule"). Anything else is forwarded
 * as the client wrote it.
 */
export function upgradeProtocol(raw: readonly string[]): { protocol: string; websocket: boolean } {
  const values: string[] = [];
  for (let i = 0; i < raw.length; i += 2)
    if ((raw[i] as string).toLowerCase() === "upgrade") values.push(raw[i + 1] as string);
  const tokens = values.join(",").split(",");
  const websocket = tokens.some((t) => /^websocket(\/|$)/i.test(t.trim()));
  return websocket ? { protocol: "websocket", websocket } : { protocol: values.join(", "), websocket };
}

/** Provider response headers as latin1 strings (byte-identical), minus hop-by-hop ones. */
export function responseHeaders(raw: readonly Buffer[]): string[] {
  const out: string[] = [];
  let listed: Set<string> | undefined;
  for (let i = 0; i < raw.length; i += 2) {
    const name = raw[i] as Buffer;
    const value = raw[i + 1] as Buffer;
    if (isNamed(name, "connection")) {
      if (!isNamed(value, "keep-alive")) listed = addConnectionNames(listed, value.toString("latin1"));
      continue;
    }
    if (HOP_BY_HOP_RESPONSE.some((hop) => isNamed(name, hop))) continue;
    out.push(name.toString("latin1"), value.toString("latin1"));
  }
  // A Connection header may come after the headers it names, hence a second pass in that rare case.
  return listed ? dropListed(out, listed) : out;
}
