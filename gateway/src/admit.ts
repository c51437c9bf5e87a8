import type { IncomingMessage } from "node:http";
import { type AuthResult, authenticate, type KeyRecord } from "./auth/authenticate.ts";
import type { ReadThroughCache } from "./auth/cache.ts";
import type { createCostOf } from "./billing/costs.ts";
import type { Ledger, ReservationHandle, ReserveResult } from "./billing/ledger.ts";
import type { createLimitHeaders } from "./billing/limit-headers.ts";
import type { ErrorDetails, GatewayErrorCode } from "./errors.ts";
import { idempotencyKeyOf } from "./idempotency.ts";
import type { AccessLog } from "./log.ts";
import type { GatewayMetrics } from "./metrics.ts";
import { type RequestHeaders, readRequestHeaders } from "./routing/headers.ts";
import { parseGatewayPath } from "./routing/path.ts";
import type { ProviderRecord } from "./routing/providers.ts";

/**
 * The stages before the proxy (docs/gateway.md): authenticate → route → idempotency → reserve. handle.ts
 * runs them for every request and upgrade, then proxies what they admitted.
 */

/** What the stages before the proxy read, and the helpers the handler builds once. */
export interface AdmitStages {
  deps: {
    keys: ReadThroughCache<KeyRecord>;
    providers: ReadThroughCache<ProviderRecord | null>;
    rate: ReadThroughCache<string | null>;
    ledger: Ledger;
    metrics: GatewayMetrics;
  };
  limitHeaders: ReturnType<typeof createLimitHeaders>;
  costOf: ReturnType<typeof createCostOf>;
}

export type ReserveInput = Parameters<Ledger["reserve"]>[0];

export type Admission =
  | {
      ok: true;
      provider: ProviderRecord;
      target: { path: string; query: string };
      headers: RequestHeaders;
      reservation: ReservationHandle;
      /** What was reserved, for an upgraded connection's further slices. */
      reserved: ReserveInput;
      /** The RateLimit header fields of this request (none without a request limit). */
      limitHeaders: string[];
    }
  | { ok: false; code: GatewayErrorCode; details?: ErrorDetails };

/** An admitted request or upgrade. */
export type Admitted = Extract<Admission, { ok: true }>;

/** The request identified: its headers, who sends it, to which provider, under which idempotency key. */
type Identified =
  | {
      ok: true;
      headers: RequestHeaders;
      auth: Extract<AuthResult, { ok: true }>;
      target: { providerKey: string; path: string; query: string };
      provider: ProviderRecord;
      idempotencyKey: string;
    }
  | { ok: false; code: GatewayErrorCode };

/** Stages before the reservation: authenticate → route → idempotency. */
async function identify(s: AdmitStages, req: IncomingMessage, log: AccessLog): Promise<Identified> {
  const headers = readRequestHeaders(req.rawHeaders, {
    address: req.socket.remoteAddress,
    encrypted: "encrypted" in req.socket && req.socket.encrypted === true,
  });
  const auth = await authenticate(headers.apiKey, s.deps.keys);
  if (!auth.ok) return auth;
  log.party = auth.partyId;

  const target = parseGatewayPath(req.url ?? "");
  if ("refused" in target) return { ok: false, code: target.refused };
  log.provider = target.providerKey;
  const provider = await s.deps.providers.get(target.providerKey);
  if (!provider) return { ok: false, code: "PROVIDER_NOT_FOUND" };
  if (provider.status !== "active") return { ok: false, code: "PROVIDER_INACTIVE" };

  const idem = idempotencyKeyOf(headers.idempotencyKeys);
  if (!idem.ok) return idem;
  return { ok: true, headers, auth, target, provider, idempotencyKey: idem.key };
}

/**
 * Stages before the proxy: identify, then reserve. `price` picks what is reserved: the request price, or
 * for an upgrade its first slice's.
 */
export async function admit(
  s: AdmitStages,
  req: IncomingMessage,
  log: AccessLog,
  price: (p: ProviderRecord) => string,
): Promise<Admission> {
  const fail = (code: GatewayErrorCode, details?: ErrorDetails): Admission => {
    log.outcome = code;
    return { ok: false, code, ...(details ? { details } : {}) };
  };
  const who = await identify(s, req, log);
  if (!who.ok) return fail(who.code);
  const { auth, provider } = who;
  const rate = await s.deps.rate.get("current");
  if (rate === null) return fail("NO_COIN_RATE");
  const usd = price(provider);
  const input: ReserveInput = {
    partyId: auth.partyId,
    providerKey: provider.key,
    idempotencyKey: who.idempotencyKey,
    costInUsd: usd,
    cost: s.costOf(usd, rate),
    keyId: auth.keyId,
    budget: auth.budget.script,
  };
  const reserved = await reserve(s, input);
  const limits = s.limitHeaders(reserved.window, auth.budget.policy, reserved.keyWindows);
  if (!reserved.ok) {
    if (reserved.code === "DUPLICATE")
      return fail("DUPLICATE", { extra: { reservation: reserved.existing }, headers: limits });
    // `gateway-limit` names the limit or cap that refused (docs/gateway.md, "402 or 429").
    if (reserved.code === "RATE_LIMITED" || reserved.code === "SPEND_CAP_REACHED")
      return fail(reserved.code, {
        retryAfterSeconds: reserved.retryAfterSeconds,
        headers: [...limits, "gateway-limit", reserved.limit],
      });
    return fail(reserved.code, { headers: limits });
  }
  log.reservation = reserved.reservation.id;
  const { headers, target } = who;
  return {
    ok: true,
    provider,
    target,
    headers,
    reservation: reserved.reservation,
    reserved: input,
    limitHeaders: limits,
  };
}

async function reserve(s: AdmitStages, input: ReserveInput): Promise<ReserveResult> {
  const reserveStarted = performance.now();
  let reserved: ReserveResult;
  try {
    reserved = await s.deps.ledger.reserve(input);
  } catch (err) {
    s.deps.metrics.redisError("reserve");
    throw err;
  }
  s.deps.metrics.reserveMs(performance.now() - reserveStarted);
  return reserved;
}
