import type { IncomingMessage, ServerResponse } from "node:http";
import type { Duplex } from "node:stream";
import { hashApiKey } from "@stake/db/api-key";
import { newId } from "@stake/db/ids";
import type { PartyRateLimit } from "@stake/db/redis/scripts";
import { authenticate, authenticateHash, type KeyRecord } from "./auth/authenticate.ts";
import type { ReadThroughCache } from "./auth/cache.ts";
import { createCostFormatter, createCostOf } from "./billing/costs.ts";
import type {
  FinalizeOutcome,
  Ledger,
  ReservationHandle,
  ReserveResult,
  ServedFacts,
} from "./billing/ledger.ts";
import { createLimitHeaders } from "./billing/limit-headers.ts";
import { meterSlices } from "./billing/slices.ts";
import { type ErrorDetails, GATEWAY_ERRORS, type GatewayErrorCode, writeError } from "./errors.ts";
import { idempotencyKeyOf } from "./idempotency.ts";
import { type AccessLog, createAccessLog, type Logger } from "./log.ts";
import type { GatewayMetrics } from "./metrics.ts";
import { forward } from "./proxy/forward.ts";
import { splice, tunnel, writeSocketError } from "./proxy/upgrade.ts";
import type { Upstreams } from "./proxy/upstreams.ts";
import { CLOSE_REFUSED } from "./proxy/ws-frames.ts";
import { type RequestHeaders, readRequestHeaders, upgradeProtocol } from "./routing/headers.ts";
import { joinBasePath, parseGatewayPath } from "./routing/path.ts";
import type { ProviderRecord } from "./routing/providers.ts";

/**
 * How long a finalize is retried while Redis is unreachable. A `registered` one that lands after the
 * reaper released its reservation is still charged (late, under a new reservation: ledger.finalize), so
 * the window only bounds how long a Redis outage may last before a request served just before it goes
 * unpaid. Cheap to hold: while Redis is away nothing new is reserved, so only the requests in flight when
 * it went away are waiting, each retrying at most once a second.
 */
const FINALIZE_RETRY_MS = 5 * 60_000;

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

type ReserveInput = Parameters<Ledger["reserve"]>[0];

type Admission =
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

/**
 * Every answer after the reservation names the request, its reservation and what it is charged; a gateway
 * 502/408 is charged nothing (the reservation is released).
 */
const refusal = (limits: readonly string[], reservation: ReservationHandle): ErrorDetails => ({
  headers: [...limits, "gateway-reservation-id", reservation.id, "gateway-cost", "0"],
});

/**
 * The whole request flow, in the spec's order: authenticate → route → idempotency → reserve → proxy →
 * finalize → one access-log line. `expectContinue` requests get their 100 only once auth and the
 * reservation succeeded, so a refused client never uploads its body.
 */
export function createHandler(deps: HandleDeps) {
  const { logger, ledger, metrics } = deps;
  const accessLine = createAccessLog(logger);
  // Counted where the access line is written: once per request, with the same outcome. A provider key
  // that names no provider is not a label (anyone can put any key in a path).
  const access = (log: AccessLog) => {
    const known = log.outcome === "PROVIDER_NOT_FOUND" ? undefined : log.provider;
    metrics.finished(log.party, known, log.outcome);
    accessLine(log);
  };
  const limitHeaders = createLimitHeaders(deps.partyRateLimit);
  const formatCost = createCostFormatter();
  const costOf = createCostOf();

  /**
   * Stages before the proxy: authenticate → route → idempotency → reserve. `price` picks what is reserved:
   * the request price, or for an upgrade its first slice's.
   */
  async function admit(
    req: IncomingMessage,
    log: AccessLog,
    price: (p: ProviderRecord) => string,
  ): Promise<Admission> {
    const fail = (code: GatewayErrorCode, details?: ErrorDetails): Admission => {
      log.outcome = code;
      return { ok: false, code, ...(details ? { details } : {}) };
    };
    const headers = readRequestHeaders(req.rawHeaders, {
      address: req.socket.remoteAddress,
      encrypted: "encrypted" in req.socket && req.socket.encrypted === true,
    });
    const auth = await authenticate(headers.apiKey, deps.keys);
    if (!auth.ok) return fail(auth.code);
    log.party = auth.partyId;

    const target = parseGatewayPath(req.url ?? "");
    if (!target) return fail("PROVIDER_KEY_REQUIRED");
    log.provider = target.providerKey;
    const provider = await deps.providers.get(target.providerKey);
    if (!provider) return fail("PROVIDER_NOT_FOUND");
    if (provider.status !== "active") return fail("PROVIDER_INACTIVE");

    const idem = idempotencyKeyOf(headers.idempotencyKeys);
    if (!idem.ok) return fail(idem.code);

    const rate = await deps.rate.get("current");
    if (rate === null) return fail("NO_COIN_RATE");
    const usd = price(provider);
    const input: ReserveInput = {
      partyId: auth.partyId,
      providerKey: provider.key,
      idempotencyKey: idem.key,
      costInUsd: usd,
      cost: costOf(usd, rate),
      keyId: auth.keyId,
      budget: auth.budget.script,
    };
    const reserveStarted = performance.now();
    let reserved: ReserveResult;
    try {
      reserved = await ledger.reserve(input);
    } catch (err) {
      metrics.redisError("reserve");
      throw err;
    }
    metrics.reserveMs(performance.now() - reserveStarted);
    const limits = limitHeaders(reserved.window, auth.budget.policy, reserved.keyWindows);
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

  const requestPrice = (p: ProviderRecord) => p.costInUsd;

  /** What is left of the request's deadline, counted from its arrival at `started`. */
  const deadlineLeft = (started: number) => deps.requestDeadlineMs - (performance.now() - started);

  async function run(
    req: IncomingMessage,
    res: ServerResponse,
    expectContinue: boolean,
    log: AccessLog,
    started: number,
  ) {
    const fail = (code: GatewayErrorCode, details?: ErrorDetails) => {
      log.outcome = code;
      writeError(res, code, log.reqId, details);
    };

    const admitted = await admit(req, log, requestPrice);
    if (!admitted.ok) return fail(admitted.code, admitted.details);
    const { provider, target, headers, reservation, limitHeaders: limits } = admitted;
    if (expectContinue && !res.destroyed) res.writeContinue();

    // The provider's status decides as soon as its response headers arrive (spec: `registered` = it
    // answered 2xx/3xx), so a reservation is in flight only until then and a long streamed body cannot
    // outlive the reaper's threshold. A provider that breaks mid-body after a 2xx/3xx releases it again.
    let early: { outcome: Outcome; done: Promise<void> } | undefined;
    let outcome: Outcome = "failed-unanswered";
    const facts: ServedFacts = { path: target.path };
    const sent = performance.now();
    try {
      const result = await forward({
        req,
        res,
        dispatcher: deps.upstreams.get(provider.origin),
        path: joinBasePath(provider.basePath, target.path) + target.query,
        headers: headers.forward,
        hasBody: headers.hasBody,
        timeoutMs: deps.upstreamTimeoutMs,
        deadlineMs: deadlineLeft(started),
        onDeadline(uploaded) {
          // Still uploading: the client's fault, and the rest of its body will not be read.
          if (!uploaded) res.shouldKeepAlive = false;
          writeError(
            res,
            uploaded ? "UPSTREAM_ABORTED" : "REQUEST_TIMEOUT",
            log.reqId,
            refusal(limits, reservation),
          );
        },
        onResponse(status, fields) {
          const decided = status < 400 ? "registered" : "failed";
          facts.httpStatus = status;
          const upstreamMs = performance.now() - sent;
          facts.upstreamMs = Math.round(upstreamMs);
          metrics.upstreamMs(provider.key, upstreamMs);
          early = { outcome: decided, done: finalize(reservation, decided, facts) };
          for (const f of limits) fields.push(f);
          fields.push(
            "request-id",
            log.reqId,
            "gateway-reservation-id",
            reservation.id,
            "gateway-cost",
            decided === "registered" ? formatCost(reservation.cost) : "0",
          );
        },
      });
      switch (result.kind) {
        case "response":
          log.status = result.status;
          outcome = result.status >= 200 && result.status < 400 ? "registered" : "failed";
          log.outcome = result.complete ? outcome : `${outcome}:client-left-mid-body`;
          break;
        case "client-aborted":
          // docs/architecture.md §11: the provider had the whole request and was answering it, so the
          // work was done whether or not the client waits for the answer; charged like an answer.
          if (result.delivered) outcome = "registered";
          log.outcome = result.delivered ? "registered:client-left-before-response" : "failed:client-aborted";
          break;
        case "deadline":
          log.status = res.statusCode;
          log.outcome = result.uploaded ? "failed:deadline-upstream" : "failed:deadline-upload";
          break;
        case "upstream-error":
          log.outcome = `failed:${result.code}`;
          log.error = (result.error as { code?: string })?.code ?? String(result.error);
          if (!result.responseStarted) writeError(res, result.code, log.reqId, refusal(limits, reservation));
          break;
      }
    } finally {
      if (!early) {
        // No provider answer: the status the client got from the gateway (0: it left first).
        facts.httpStatus = res.headersSent ? res.statusCode : 0;
        await finalize(reservation, outcome, facts);
      } else {
        await early.done;
        if (early.outcome === "registered" && outcome !== "registered")
          await finalize(reservation, "failed-mid-body", facts);
      }
    }
  }

  /**
   * Never rejects: the early finalize runs while the body streams, before anything awaits it, and by then
   * the client's answer is decided anyway. While Redis is out of reach (restarting from its append-only
   * file) the finalize is retried for FINALIZE_RETRY_MS, so a request served meanwhile is still charged;
   * one given up on is failed (released, uncharged) by the worker's reaper.
   */
  async function finalize(
    r: ReservationHandle,
    outcome: FinalizeOutcome,
    facts?: ServedFacts,
  ): Promise<void> {
    const giveUpAt = Date.now() + FINALIZE_RETRY_MS;
    for (let wait = 50; ; wait = Math.min(wait * 2, 1000)) {
      try {
        const id = r.id;
        const done = await ledger.finalize(r, outcome, facts);
        if (!done.ok)
          logger.error({ reservation: id, outcome, done }, "finalize could not move the reservation");
        else if (done.lateCharge)
          logger.warn(
            { reservation: id, charge: done.lateCharge },
            "served after the reaper released the reservation: charged under a new one",
          );
        return;
      } catch (err) {
        metrics.redisError("finalize");
        if (Date.now() + wait > giveUpAt) {
          logger.error({ reservation: r.id, outcome, err }, "finalize failed; the reaper will release it");
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, wait));
      }
    }
  }

  /**
   * Upgrade requests go through the same stages. The connection is billed in slices
   * (docs/architecture.md §11): the first is reserved like a request and registered on the provider's 101
   * (released when the upgrade fails); billing/slices.ts reserves each next one before it is used and
   * closes the connection (4402) when the party cannot pay it.
   */
  function upgrade(req: IncomingMessage, socket: Duplex, head: Buffer): void {
    const started = performance.now();
    const log: AccessLog = { reqId: newId("request"), method: `${req.method} upgrade` };
    metrics.started();
    const run = async () => {
      const admitted = await admit(req, log, (p) => p.upgradeSlice.costInUsd);
      if (!admitted.ok) return writeSocketError(socket, admitted.code, admitted.details);
      const { provider, target, headers, reservation } = admitted;
      let reserved = admitted.reserved;
      const { protocol, websocket } = upgradeProtocol(req.rawHeaders);
      const result = await tunnel({
        socket,
        dispatcher: deps.upstreams.get(provider.origin),
        path: joinBasePath(provider.basePath, target.path) + target.query,
        headers: headers.forward,
        protocol,
        timeoutMs: deps.upstreamTimeoutMs,
        deadlineMs: deadlineLeft(started),
      });
      log.status = result.ok ? 101 : 502;
      log.outcome = result.ok ? "registered" : `failed:${result.code}`;
      if (!result.ok) {
        writeSocketError(socket, result.code);
        return finalize(reservation, "failed");
      }
      await finalize(reservation, "registered");
      // Admitted, so the header held a well-formed key.
      const keyHash = hashApiKey(headers.apiKey as string);
      let refusedBy: GatewayErrorCode | undefined;
      const meter = meterSlices({
        terms: provider.upgradeSlice,
        async reserve(n) {
          // A space cannot be in a client's key (visible ASCII only), so a slice never meets one.
          const slice = await ledger.reserve({
            ...reserved,
            idempotencyKey: `${reserved.idempotencyKey} slice ${n}`,
          });
          return slice.ok ? slice.reservation : null;
        },
        start: (r) => finalize(r, "registered"),
        release: (r) => finalize(r, "failed"),
        onUnpaid() {
          logger.info(
            { party: reserved.partyId, provider: provider.key, slices: meter.slices },
            "upgraded connection closed: the next slice could not be paid",
          );
          spliced.closeUnpaid();
        },
        // A new request's checks, with what they load now: a lowered cap reaches the next slice too.
        async authorized() {
          const auth = await authenticateHash(keyHash, deps.keys);
          if (auth.ok && auth.partyId === reserved.partyId) {
            reserved = { ...reserved, keyId: auth.keyId, budget: auth.budget.script };
            return true;
          }
          refusedBy = auth.ok ? "NO_PARTY" : auth.code;
          return false;
        },
        onRefused() {
          const code = refusedBy ?? "KEY_INACTIVE";
          logger.info(
            { party: reserved.partyId, provider: provider.key, slices: meter.slices, code },
            "upgraded connection closed: its key no longer admits a request",
          );
          spliced.closeUnpaid(CLOSE_REFUSED, GATEWAY_ERRORS[code][1]);
        },
      });
      const spliced = splice({
        client: socket,
        upstream: result.upstream,
        head,
        websocket,
        onMessage: meter.message,
        onClose: meter.stop,
      });
    };
    run()
      .catch((err: unknown) => {
        log.outcome = "INTERNAL";
        log.error = err instanceof Error ? err.message : String(err);
        writeSocketError(socket, "INTERNAL");
      })
      .finally(() => access(log));
  }

  function handle(req: IncomingMessage, res: ServerResponse, expectContinue = false): void {
    const started = performance.now();
    const log: AccessLog = { reqId: newId("request"), method: req.method };
    metrics.started();
    run(req, res, expectContinue, log, started)
      .catch((err: unknown) => {
        log.outcome = "INTERNAL";
        log.error = err instanceof Error ? err.message : String(err);
        writeError(res, "INTERNAL", log.reqId);
      })
      .finally(() => {
        if (!log.status) log.status = res.headersSent ? res.statusCode : 0;
        log.ms = performance.now() - started;
        access(log);
      });
  }

  return { handle, upgrade };
}
