import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { hashApiKey } from "@stake/db/api-key";
import { newId } from "@stake/db/ids";
import type { PartyRateLimit } from "@stake/db/redis/scripts";
import { type AdmitStages, type Admitted, admit } from "./admit.ts";
import { authenticateHash, type KeyRecord } from "./auth/authenticate.ts";
import type { ReadThroughCache } from "./auth/cache.ts";
import { createCostFormatter, createCostOf } from "./billing/costs.ts";
import { finalizeRetrying } from "./billing/finalize.ts";
import type { Ledger, ReservationHandle, ServedFacts } from "./billing/ledger.ts";
import { createLimitHeaders } from "./billing/limit-headers.ts";
import { meterSlices } from "./billing/slices.ts";
import { type ErrorDetails, GATEWAY_ERRORS, type GatewayErrorCode, writeError } from "./errors.ts";
import { type AccessLog, createAccessLog, type Logger } from "./log.ts";
import type { GatewayMetrics } from "./metrics.ts";
import { type ForwardOutcome, forward } from "./proxy/forward.ts";
import { splice, tunnel, writeSocketError } from "./proxy/upgrade.ts";
import type { Upstreams } from "./proxy/upstreams.ts";
import { CLOSE_REFUSED } from "./proxy/ws-frames.ts";
import { upgradeProtocol } from "./routing/headers.ts";
import { joinBasePath } from "./routing/path.ts";
import type { ProviderRecord } from "./routing/providers.ts";

export interface HandleDeps {
  logger: Logger;
  metrics: GatewayMetrics;
  keys: ReadThroughCache<KeyRecord>;
  providers: ReadThroughCache<ProviderRecord | null>;
  rate: ReadThroughCache<string | null>;
  ledger: Ledger;
  upstreams: Upstreams;
  upstreamTimeoutMs: number;
  /** From a request's arrival to the provider's response headers (or 101), upload included. */
  requestDeadlineMs: number;
  /** The per-party request limit reserve.lua counts, announced in the RateLimit header fields. */
  partyRateLimit: PartyRateLimit;
}

/** `failed-unanswered`: no provider byte came back, so the record is kept minutes (finalize.lua). */
type Outcome = "registered" | "failed" | "failed-unanswered";

/**
 * Every answer after the reservation names the request, its reservation and what it is charged; a gateway
 * 502/408 is charged nothing (the reservation is released).
 */
const refusal = (limits: readonly string[], reservation: ReservationHandle): ErrorDetails => ({
  headers: [...limits, "gateway-reservation-id", reservation.id, "gateway-cost", "0"],
});

/** What every stage shares: the dependencies and the helpers built once per handler. */
interface Stages extends AdmitStages {
  deps: HandleDeps;
  access(log: AccessLog): void;
  formatCost: ReturnType<typeof createCostFormatter>;
}

/**
 * The whole request flow, in the spec's order: authenticate → route → idempotency → reserve → proxy →
 * finalize → one access-log line. `expectContinue` requests get their 100 only once auth and the
 * reservation succeeded, so a refused client never uploads its body.
 */
export function createHandler(deps: HandleDeps) {
  const accessLine = createAccessLog(deps.logger);
  const stages: Stages = {
    deps,
    // Counted where the access line is written: once per request, with the same outcome. A provider key
    // that names no provider is not a label (anyone can put any key in a path).
    access(log) {
      const known = log.outcome === "PROVIDER_NOT_FOUND" ? undefined : log.provider;
      deps.metrics.finished(log.party, known, log.outcome);
      accessLine(log);
    },
    limitHeaders: createLimitHeaders(deps.partyRateLimit),
    formatCost: createCostFormatter(),
    costOf: createCostOf(),
  };
  return {
    handle: (req: IncomingMessage, res: ServerResponse, expectContinue = false) =>
      handleRequest(stages, req, res, expectContinue),
    upgrade: (req: IncomingMessage, socket: Duplex, head: Buffer) => handleUpgrade(stages, req, socket, head),
  };
}

function handleRequest(s: Stages, req: IncomingMessage, res: ServerResponse, expectContinue: boolean) {
  const started = performance.now();
  const log: AccessLog = { reqId: newId("request"), method: req.method };
  s.deps.metrics.started();
  serve(s, req, res, { expectContinue, log, started })
    .catch((err: unknown) => {
      log.outcome = "INTERNAL";
      log.error = err instanceof Error ? err.message : String(err);
      writeError(res, "INTERNAL", log.reqId);
    })
    .finally(() => {
      if (!log.status) log.status = res.headersSent ? res.statusCode : 0;
      log.ms = performance.now() - started;
      s.access(log);
    });
}

const requestPrice = (p: ProviderRecord) => p.costInUsd;

/** What is left of the request's deadline, counted from its arrival at `started`. */
const deadlineLeft = (s: Stages, started: number) => s.deps.requestDeadlineMs - (performance.now() - started);

/** One request's state while it is served: its 100-continue, its access line, its arrival. */
interface Serving {
  expectContinue: boolean;
  log: AccessLog;
  started: number;
}

/** The provider's decision, taken as soon as its response headers arrive, and its finalize under way. */
interface Early {
  outcome: Outcome;
  done: Promise<void>;
}

async function serve(s: Stages, req: IncomingMessage, res: ServerResponse, at: Serving) {
  const { log } = at;
  const admitted = await admit(s, req, log, requestPrice);
  if (!admitted.ok) {
    log.outcome = admitted.code;
    return writeError(res, admitted.code, log.reqId, admitted.details);
  }
  if (at.expectContinue && !res.destroyed) res.writeContinue();

  // The provider's status decides as soon as its response headers arrive (spec: `registered` = it
  // answered 2xx/3xx), so a reservation is in flight only until then and a long streamed body cannot
  // outlive the reaper's threshold. A provider that breaks mid-body after a 2xx/3xx releases it again.
  const decided: { early?: Early } = {};
  let outcome: Outcome = "failed-unanswered";
  const facts: ServedFacts = { path: admitted.target.path };
  try {
    const result = await proxy(s, { req, res, at, admitted, facts, decided });
    outcome = recordResult(res, log, result, admitted);
  } finally {
    const { reservation } = admitted;
    const early = decided.early;
    if (!early) {
      // No provider answer: the status the client got from the gateway (0: it left first).
      facts.httpStatus = res.headersSent ? res.statusCode : 0;
      await finalizeRetrying(s.deps, reservation, outcome, facts);
    } else {
      await early.done;
      if (early.outcome === "registered" && outcome !== "registered")
        await finalizeRetrying(s.deps, reservation, "failed-mid-body", facts);
    }
  }
}

/**
 * Forwards an admitted request. On the provider's response headers its outcome is decided and finalized
 * at once (`decided.early`), and the gateway's fields are appended to the provider's.
 */
function proxy(
  s: Stages,
  a: {
    req: IncomingMessage;
    res: ServerResponse;
    at: Serving;
    admitted: Admitted;
    facts: ServedFacts;
    decided: { early?: Early };
  },
) {
  const { req, res, admitted, facts } = a;
  const { provider, target, headers, reservation, limitHeaders: limits } = admitted;
  const { reqId } = a.at.log;
  const sent = performance.now();
  return forward({
    req,
    res,
    dispatcher: s.deps.upstreams.get(provider.origin),
    path: joinBasePath(provider.basePath, target.path) + target.query,
    headers: headers.forward,
    hasBody: headers.hasBody,
    timeoutMs: s.deps.upstreamTimeoutMs,
    deadlineMs: deadlineLeft(s, a.at.started),
    onDeadline(uploaded) {
      // Still uploading: the client's fault, and the rest of its body will not be read.
      if (!uploaded) res.shouldKeepAlive = false;
      const code = uploaded ? "UPSTREAM_ABORTED" : "REQUEST_TIMEOUT";
      writeError(res, code, reqId, refusal(limits, reservation));
    },
    onResponse(status, fields) {
      const decided = status < 400 ? "registered" : "failed";
      facts.httpStatus = status;
      const upstreamMs = performance.now() - sent;
      facts.upstreamMs = Math.round(upstreamMs);
      s.deps.metrics.upstreamMs(provider.key, upstreamMs);
      a.decided.early = { outcome: decided, done: finalizeRetrying(s.deps, reservation, decided, facts) };
      for (const f of limits) fields.push(f);
      const cost = decided === "registered" ? s.formatCost(reservation.cost) : "0";
      fields.push("request-id", reqId, "gateway-reservation-id", reservation.id, "gateway-cost", cost);
    },
  });
}

/** The access line's status and outcome for what the proxy reported, and the request's outcome. */
function recordResult(
  res: ServerResponse,
  log: AccessLog,
  result: ForwardOutcome,
  admitted: Admitted,
): Outcome {
  switch (result.kind) {
    case "response": {
      log.status = result.status;
      const outcome = result.status >= 200 && result.status < 400 ? "registered" : "failed";
      log.outcome = result.complete ? outcome : `${outcome}:client-left-mid-body`;
      return outcome;
    }
    case "client-aborted":
      // docs/architecture.md §11: the provider had the whole request and was answering it, so the
      // work was done whether or not the client waits for the answer; charged like an answer.
      log.outcome = result.delivered ? "registered:client-left-before-response" : "failed:client-aborted";
      return result.delivered ? "registered" : "failed-unanswered";
    case "deadline":
      log.status = res.statusCode;
      log.outcome = result.uploaded ? "failed:deadline-upstream" : "failed:deadline-upload";
      return "failed-unanswered";
    case "upstream-error":
      log.outcome = `failed:${result.code}`;
      log.error = (result.error as { code?: string })?.code ?? String(result.error);
      if (!result.responseStarted)
        writeError(res, result.code, log.reqId, refusal(admitted.limitHeaders, admitted.reservation));
      return "failed-unanswered";
  }
}

/**
 * Upgrade requests go through the same stages. The connection is billed in slices
 * (docs/architecture.md §11): the first is reserved like a request and registered on the provider's 101
 * (released when the upgrade fails); billing/slices.ts reserves each next one before it is used and
 * closes the connection (4402) when the party cannot pay it.
 */
function handleUpgrade(s: Stages, req: IncomingMessage, socket: Duplex, head: Buffer): void {
  const started = performance.now();
  const log: AccessLog = { reqId: newId("request"), method: `${req.method} upgrade` };
  s.deps.metrics.started();
  serveUpgrade(s, { req, socket, head }, log, started)
    .catch((err: unknown) => {
      log.outcome = "INTERNAL";
      log.error = err instanceof Error ? err.message : String(err);
      writeSocketError(socket, "INTERNAL");
    })
    .finally(() => s.access(log));
}

interface UpgradeRequest {
  req: IncomingMessage;
  socket: Duplex;
  head: Buffer;
}

async function serveUpgrade(s: Stages, u: UpgradeRequest, log: AccessLog, started: number) {
  const { req, socket } = u;
  const admitted = await admit(s, req, log, (p) => p.upgradeSlice.costInUsd);
  if (!admitted.ok) return writeSocketError(socket, admitted.code, admitted.details);
  const { provider, target, headers, reservation } = admitted;
  const { protocol, websocket } = upgradeProtocol(req.rawHeaders);
  const result = await tunnel({
    socket,
    dispatcher: s.deps.upstreams.get(provider.origin),
    path: joinBasePath(provider.basePath, target.path) + target.query,
    headers: headers.forward,
    protocol,
    timeoutMs: s.deps.upstreamTimeoutMs,
    deadlineMs: deadlineLeft(s, started),
  });
  log.status = result.ok ? 101 : 502;
  log.outcome = result.ok ? "registered" : `failed:${result.code}`;
  if (!result.ok) {
    writeSocketError(socket, result.code);
    return finalizeRetrying(s.deps, reservation, "failed");
  }
  await finalizeRetrying(s.deps, reservation, "registered");
  meterConnection(s, u, admitted, { upstream: result.upstream, websocket });
}

/** Splices an upgraded connection, reserving each next slice before it is used (billing/slices.ts). */
function meterConnection(
  s: Stages,
  u: UpgradeRequest,
  admitted: Admitted,
  tunnel: { upstream: Duplex; websocket: boolean },
) {
  const { provider } = admitted;
  let reserved = admitted.reserved;
  // Admitted, so the header held a well-formed key.
  const keyHash = hashApiKey(admitted.headers.apiKey as string);
  let refusedBy: GatewayErrorCode | undefined;
  const meter = meterSlices({
    terms: provider.upgradeSlice,
    async reserve(n) {
      // A space cannot be in a client's key (visible ASCII only), so a slice never meets one.
      const slice = await s.deps.ledger.reserve({
        ...reserved,
        idempotencyKey: `${reserved.idempotencyKey} slice ${n}`,
      });
      return slice.ok ? slice.reservation : null;
    },
    start: (r) => finalizeRetrying(s.deps, r, "registered"),
    release: (r) => finalizeRetrying(s.deps, r, "failed"),
    onUnpaid() {
      s.deps.logger.info(
        { party: reserved.partyId, provider: provider.key, slices: meter.slices },
        "upgraded connection closed: the next slice could not be paid",
      );
      spliced.closeUnpaid();
    },
    // A new request's checks, with what they load now: a lowered cap reaches the next slice too.
    async authorized() {
      const auth = await authenticateHash(keyHash, s.deps.keys);
      if (auth.ok && auth.partyId === reserved.partyId) {
        reserved = { ...reserved, keyId: auth.keyId, budget: auth.budget.script };
        return true;
      }
      refusedBy = auth.ok ? "NO_PARTY" : auth.code;
      return false;
    },
    onRefused() {
      const code = refusedBy ?? "KEY_INACTIVE";
      s.deps.logger.info(
        { party: reserved.partyId, provider: provider.key, slices: meter.slices, code },
        "upgraded connection closed: its key no longer admits a request",
      );
      spliced.closeUnpaid(CLOSE_REFUSED, GATEWAY_ERRORS[code][1]);
    },
  });
  const spliced = splice({
    client: u.socket,
    upstream: tunnel.upstream,
    head: u.head,
    websocket: tunnel.websocket,
    onMessage: meter.message,
    onClose: meter.stop,
  });
}
