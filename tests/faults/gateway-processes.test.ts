import assert from "node:assert/strict";
import { randomBytes } from "node:crypto";
import { after, before, test } from "node:test";
import { Agent, request } from "undici";
import { createGatewayAccountRepo } from "../../control-plane/src/features/gateway-account/repo.ts";
import { readBalance } from "../../control-plane/src/features/gateway-settlement/funding.ts";
import { freePort } from "../../scripts/lib/ports.ts";
import type { Started } from "../../scripts/lib/processes.ts";
import { scrape } from "../../scripts/lib/prometheus.ts";
import { eventually } from "../helpers/eventually.ts";
import { assertBooks, type Stack, settledCount, startStack } from "./stack.ts";

// Several gateways over one Redis: one started with GATEWAY_PROCESSES=2 (node:cluster,
// one port), one alone on another port, as two hosts behind a load balancer would be.

const RATE_LIMIT = 30;
let s: Stack;
before(async () => {
  s = await startStack();
  await s.seedProvider();
});
after(() => s?.close());

/** A gateway of two processes on one port and a gateway alone on another, over the stack's Redis. */
function gateways(env: Record<string, string> = {}) {
  return Promise.all([
    s.gateway("gateway-2p", { ...env, GATEWAY_PROCESSES: "2" }),
    s.gateway("gateway-1p", env),
  ]);
}

const agent = new Agent({ connections: 16 });
after(() => agent.close());

/** One paid request with a fresh idempotency key: its status, or the transport error's code. */
async function paid(url: string, apiKey: string, key = `k-${randomBytes(8).toString("hex")}`) {
  try {
    const res = await request(`${url}/gateway/echo/echo`, {
      dispatcher: agent,
      headers: { "x-gateway-api-key": apiKey, "idempotency-key": key },
    });
    await res.body.dump();
    return res.statusCode;
  } catch (err) {
    return (err as { code?: string }).code ?? "error";
  }
}

/** Refused to connect, or the connection closed before a byte of an answer (reset, or FIN: undici's UND_ERR_SOCKET). */
const CLOSED_BEFORE_ANSWER = new Set(["ECONNREFUSED", "ECONNRESET", "UND_ERR_SOCKET"]);

const tally = (xs: (number | string)[]) =>
  Object.fromEntries([...new Set(xs)].map((x) => [x, xs.filter((y) => y === x).length]));

test("a party's balance and rate limit hold exactly across gateway processes and hosts", async () => {
  const [clustered, single] = await gateways({
    GATEWAY_PARTY_RATE_LIMIT: String(RATE_LIMIT),
    GATEWAY_PARTY_RATE_WINDOW_MS: "600000",
  });
  // 0.4 coins at 0.02 a request: 20 requests, asked 25 times at once (within the rate limit).
  const poor = await s.operator.openAccount({ coins: "0.4" });
  const asked = await Promise.all(
    Array.from({ length: 25 }, (_, i) => paid(i % 2 ? single.url : clustered.url, poor.apiKey)),
  );
  assert.deepEqual(tally(asked), { 200: 20, 403: 5 }, JSON.stringify(tally(asked)));

  // Funded for thousands, asked 100 times at once: exactly the window's 30 pass, wherever they land.
  const rich = await s.operator.openAccount({ coins: "1000" });
  const burst = await Promise.all(
    Array.from({ length: 100 }, (_, i) => paid(i % 2 ? single.url : clustered.url, rich.apiKey)),
  );
  assert.deepEqual(tally(burst), { 200: RATE_LIMIT, 429: 100 - RATE_LIMIT }, JSON.stringify(tally(burst)));
  await Promise.all([stop(clustered), stop(single)]);
});

test("a key's spend cap and named limit hold exactly across gateway processes and hosts", async () => {
  const [clustered, single] = await gateways();
  const repo = createGatewayAccountRepo(s.db);
  // 0.02 coins a request: a key capped at 0.4 coins a day pays for 20, asked 60 times at once. The party
  // has thousands and no cap of its own: only the key's cap can refuse.
  const capped = await s.operator.openAccount({ coins: "1000" });
  await repo.updateKeyBudget(capped.userId, capped.keyId, {
    dailySpendCap: "4000000000",
    monthlySpendCap: null,
  });
  // Another party's key with a named limit of 15 requests per 10 minutes, asked 50 times at once.
  const limited = await s.operator.openAccount({ coins: "1000" });
  await repo.updateKeyBudget(limited.userId, limited.keyId, {
    limits: [{ name: "burst", requests: 15, windowSeconds: 600 }],
  });
  await s.operator.invalidate();
  const [spent, burst] = await Promise.all([
    Promise.all(
      Array.from({ length: 60 }, (_, i) => paid(i % 2 ? single.url : clustered.url, capped.apiKey)),
    ),
    Promise.all(
      Array.from({ length: 50 }, (_, i) => paid(i % 2 ? single.url : clustered.url, limited.apiKey)),
    ),
  ]);
  assert.deepEqual(tally(spent), { 200: 20, 402: 40 }, JSON.stringify(tally(spent)));
  assert.deepEqual(tally(burst), { 200: 15, 429: 35 }, JSON.stringify(tally(burst)));
  // Nothing over-spent: the key's counter and the party's reserved funds are exactly the cap.
  const { reserved } = await readBalance(s.redis, s.keys, capped.partyId!);
  assert.equal(reserved, 4_000_000_000n);
  assert.equal(
    await s.redis.hget(s.keys.gateway.account(capped.partyId!), `${capped.keyId}:dv`),
    "4000000000",
  );
  await Promise.all([stop(clustered), stop(single)]);
});

/** SIGTERM, and the exit code once the process is gone. */
function stop(started: Started): Promise<number | null> {
  return new Promise((resolve) => {
    started.child.once("exit", (code) => resolve(code));
    started.child.kill("SIGTERM");
  });
}

test("SIGTERM to a clustered gateway under load: every request it took is answered and charged once, it exits 0", async () => {
  const [[clustered, single]] = await Promise.all([gateways(), s.worker()]);
  const party = await s.operator.openAccount({ coins: "100000" });
  const statuses: (number | string)[] = [];
  let running = true;
  let draining = false;
  // A load balancer's part: a request the draining gateway refused to connect, or whose connection it
  // closed before answering (a keep-alive connection that was idle when the drain began: RFC 9112 §9.3.1),
  // goes to the other gateway with the same idempotency key. Had the draining gateway taken the request
  // at all (reserved under that key), the retry would be refused 409 DUPLICATE: so all 200 and clean books
  // mean every request it took was answered, and each served one charged once.
  const retried: string[] = [];
  const loop = async (i: number) => {
    while (running) {
      const first = i % 2 && !draining ? clustered.url : single.url;
      const key = `drain-${randomBytes(8).toString("hex")}`;
      let status = await paid(first, party.apiKey, key);
      if (typeof status === "string" && CLOSED_BEFORE_ANSWER.has(status) && first === clustered.url) {
        retried.push(status);
        status = await paid(single.url, party.apiKey, key);
      }
      statuses.push(status);
    }
  };
  const loops = Array.from({ length: 8 }, (_, i) => loop(i));
  await eventually(() => statuses.filter((x) => x === 200).length >= 40, { what: "load served on both" });
  assert.equal(await stop(clustered), 0, "the clustered gateway drained and exited 0");
  draining = true;
  const before = statuses.length;
  await eventually(() => statuses.length >= before + 20, { what: "load served by the other gateway" });
  running = false;
  await Promise.all(loops);

  const counts = tally(statuses);
  const served = statuses.filter((x) => x === 200).length;
  const unexpected = Object.keys(counts).filter((k) => k !== "200");
  const detail = JSON.stringify({ counts, retried: tally(retried) });
  assert.deepEqual(unexpected, [], `every request answered 200: ${detail}`);
  await eventually(
    async () =>
      (await readBalance(s.redis, s.keys, party.partyId!)).reserved === 0n &&
      (await settledCount(s, party.partyId!)) >= served,
    { what: "the worker to settle every served request" },
  );
  await assertBooks(s, party.partyId!, served);
});

test("the primary of GATEWAY_PROCESSES=2 serves its processes' metrics, summed", async () => {
  const port = await freePort();
  const clustered = await s.gateway("gateway-metrics", {
    GATEWAY_PROCESSES: "2",
    GATEWAY_METRICS_PORT: String(port),
  });
  const party = await s.operator.openAccount({ coins: "10" });
  // 40 at once over the agent's 16 connections: node:cluster deals the connections to both processes.
  const statuses = await Promise.all(Array.from({ length: 40 }, () => paid(clustered.url, party.apiKey)));
  assert.deepEqual(tally(statuses), { 200: 40 });
  const metrics = await eventually(
    async () => {
      const m = await scrape(`http://127.0.0.1:${port}/metrics`);
      return m.sum("gateway_requests_total", { outcome: "registered" }) === 40 && m;
    },
    { what: "the 40 requests counted by the primary" },
  );
  assert.equal(metrics.sum("gateway_reservation_seconds_count"), 40);
  assert.equal(metrics.sum("gateway_requests_in_flight"), 0);
  assert.equal(await stop(clustered), 0);
});
