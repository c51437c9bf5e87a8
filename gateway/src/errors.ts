import type { ServerResponse } from "node:http";
import { IDEMPOTENCY_KEY_MAX_LENGTH } from "./idempotency.ts";

/** Every gateway error: code → [status, the spec's exact message]. The messages live here only. */
export const GATEWAY_ERRORS = {
  IDEMPOTENCY_KEY_REQUIRED: [400, "Idempotency key is required"],
  IDEMPOTENCY_KEY_ARRAY: [400, "Idempotency key must be a string, and not an array"],
  // Not in the spec: an unbounded key would let a client store any amount in Redis for the idempotency
  // window at no cost.
  IDEMPOTENCY_KEY_INVALID: [
    400,
    `Idempotency key must be at most ${IDEMPOTENCY_KEY_MAX_LENGTH} visible ASCII characters`,
  ],
  PROVIDER_KEY_REQUIRED: [400, "Provider key is required"],
  // Not in the spec: a provider key is there but the upstream path is refused (it climbs above the
  // provider's base path, or a segment holds `;`, `%00` or `%25`); "Provider key is required" misnamed it.
  PATH_REFUSED: [400, "Invalid upstream path"],
  // Not in the spec: the client was still sending its body at GATEWAY_REQUEST_DEADLINE_MS.
  REQUEST_TIMEOUT: [408, "Request timeout"],
  UNAUTHORIZED: [401, "Unauthorized"],
  KEY_INACTIVE: [403, "API Key is no longer active"],
  // Not in the spec: the key's previous secret after its rotation's grace window ended.
  KEY_ROTATED: [403, "API Key was rotated; use its new secret"],
  NO_PARTY: [403, "User does not have a party"],
  INSUFFICIENT_BALANCE: [403, "Party does not have enough balance"],
  PROVIDER_INACTIVE: [403, "Provider is not active"],
  PROVIDER_NOT_FOUND: [404, "Provider not found"],
  DUPLICATE: [409, "Idempotency key already exists"],
  // Not in the spec: the per-party request or failure limit, or a named limit of the key; sent with
  // Retry-After and `gateway-limit` naming which.
  RATE_LIMITED: [429, "Too many requests"],
  // Not in the spec: the party's or the key's daily or monthly spend cap (its user's setting) would be
  // passed; sent with Retry-After (the capped window's end) and `gateway-limit` naming which. 402, not 429:
  // money, not request count, is what ran out.
  SPEND_CAP_REACHED: [402, "Spend cap reached"],
  INTERNAL: [500, "Internal server error"],
  UPSTREAM_UNAVAILABLE: [502, "Bad gateway: provider unavailable"],
  UPSTREAM_ABORTED: [502, "Bad gateway: upstream aborted response"],
  UPSTREAM_STREAM_ERROR: [502, "Bad gateway: upstream response stream error"],
  // Not in the spec: before the operator sets a coin rate no request can be priced. The gateway is not
  // ready then (/readyz says why), and a paid request is refused before anything is reserved.
  NO_COIN_RATE: [503, "Service unavailable: no coin rate is set"],
} as const satisfies Record<string, readonly [number, string]>;

export type GatewayErrorCode = keyof typeof GATEWAY_ERRORS;

const DEADLINE_PASSED = "GATEWAY_DEADLINE_PASSED";

/**
 * Why the gateway aborted a provider call at GATEWAY_REQUEST_DEADLINE_MS: the provider had not answered, so
 * to the client it is the upstream timeout's 502.
 */
export class DeadlineError extends Error {
  readonly code = DEADLINE_PASSED;
  constructor() {
    super("the request deadline passed before the provider answered");
  }
}

/**
 * Upstream failure → one of the three spec 502s, by undici/net error code. A failure to reach the
 * provider at all is "unavailable"; the provider hanging up or going silent past the timeout is
 * "aborted"; a response that cannot be parsed or does not match its framing is a "stream error".
 */
export function upstreamErrorCode(err: unknown): GatewayErrorCode {
  const code = (err as { code?: string } | null)?.code ?? "";
  switch (code) {
    case "ECONNREFUSED":
    case "ENOTFOUND":
    case "EAI_AGAIN":
    case "EHOSTUNREACH":
    case "ENETUNREACH":
    case "UND_ERR_CONNECT_TIMEOUT":
      return "UPSTREAM_UNAVAILABLE";
    case "ECONNRESET":
    case "EPIPE":
    case "UND_ERR_SOCKET":
    case "UND_ERR_CLOSED":
    case "UND_ERR_HEADERS_TIMEOUT":
    case "UND_ERR_BODY_TIMEOUT":
    case "UND_ERR_ABORTED":
    case DEADLINE_PASSED:
      return "UPSTREAM_ABORTED";
    default:
      return "UPSTREAM_STREAM_ERROR";
  }
}

/**
 * What a refusal may carry besides its message: body fields (the 409's `reservation`), a Retry-After,
 * further header fields as name/value pairs (the RateLimit fields).
 */
export interface ErrorDetails {
  extra?: Record<string, unknown>;
  retryAfterSeconds?: number;
  headers?: string[];
}

/** Writes `{message}` (plus `extra` fields and a Retry-After header, when given) unless the client is gone. */
export function writeError(
  res: ServerResponse,
  code: GatewayErrorCode,
  requestId: string,
  details: ErrorDetails = {},
): void {
  if (res.headersSent || res.destroyed) return;
  const [status, message] = GATEWAY_ERRORS[code];
  const body = JSON.stringify(details.extra ? { message, ...details.extra } : { message });
  const headers: Record<string, string | number> = {
    "content-type": "application/json; charset=utf-8",
    "content-length": Buffer.byteLength(body),
    "request-id": requestId,
  };
  if (details.retryAfterSeconds !== undefined) headers["retry-after"] = details.retryAfterSeconds;
  const more = details.headers;
  if (more) for (let i = 0; i + 1 < more.length; i += 2) headers[more[i] as string] = more[i + 1] as string;
  res.writeHead(status, headers);
  res.end(body);
}
