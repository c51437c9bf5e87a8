import assert from "node:assert/strict";
import { after, test } from "node:test";
import { createRedis } from "@stake/db/redis/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { encodeBudget } from "@stake/db/redis/scripts";
import { createLedger, NO_PARTY_LIMITS as NO_LIMITS } from "../../gateway/src/billing/ledger.ts";
import { sleep } from "../helpers/eventually.ts";
import { createTestRedis, testRedisTarget } from "../helpers/redis.ts";

// The ledger batches one party's reservations (and finalizes) of one event-loop turn into one script call
// and sends every batch of the turn in one write: the outcomes must be those of one call per request.
const r = createTestRedis();
const redis = r.redis;
const keys = createRedisKeys(r.prefix);
const ledger = createLedger(redis, keys, 86_400, NO_LIMITS);
after(() => r.cleanup());

const fund = (party: string, amount: bigint) =>
  redis.hset(keys.gateway.account(party), "balance", amount.toString(), "reserved", "0");
const account = async (party: string) => {
  const [balance, reserved] = await redis.hmget(keys.gateway.account(party), "balance", "reserved");
  return { balance: BigInt(balance ?? "0"), reserved: BigInt(reserved ?? "0") };
};
const ask = (partyId: string, idempotencyKey: string, cost: bigint) =>
  ledger.reserve({ partyId, providerKey: "p", idempotencyKey, costInUsd: "0.5", cost, keyId: "key_t" });

test("one turn, one party: a duplicate within the batch and the item past the balance fail like separate calls", async () => {
  await fund("party_a", 25n);
  const replies = await Promise.all([
    ask("party_a", "k1", 10n),
    ask("party_a", "k1", 10n),
    ask("party_a", "k2", 10n),
    ask("party_a", "k3", 10n),
  ]);
  assert.deepEqual(
    replies.map((x) => (x.ok ? "OK" : x.code)),
    ["OK", "DUPLICATE", "OK", "INSUFFICIENT_BALANCE"],
  );
  const dup = replies[1];
  assert.ok(dup && !dup.ok && dup.code === "DUPLICATE");
  assert.equal(dup.existing.idempotencyKey, "k1");
  assert.equal(dup.existing.status, "request_in_flight");
  assert.deepEqual(await account("party_a"), { balance: 25n, reserved: 20n });
});

test("several parties in one turn go out in one write, each against its own balance", async () => {
  await fund("party_b", 10n);
  await fund("party_c", 5n);
  const [b, c1, c2] = await Promise.all([
    ask("party_b", "x", 10n),
    ask("party_c", "x", 5n),
    ask("party_c", "y", 1n),
  ]);
  assert.ok(b?.ok && c1?.ok);
  assert.ok(c2 && !c2.ok && c2.code === "INSUFFICIENT_BALANCE");
  assert.ok(b.ok && c1.ok);
  const [fb, fc] = await Promise.all([
    ledger.finalize(b.reservation, "failed"),
    ledger.finalize(c1.reservation, "registered"),
  ]);
  assert.deepEqual([fb, fc], [{ ok: true }, { ok: true }]);
  assert.deepEqual(await account("party_b"), { balance: 10n, reserved: 0n });
  assert.deepEqual(await account("party_c"), { balance: 5n, reserved: 5n });
});

test("finalizing the same reservation twice in one turn moves it once and releases once", async () => {
  await fund("party_d", 10n);
  const res = await ask("party_d", "z", 4n);
  assert.ok(res.ok);
  const [first, second] = await Promise.all([
    ledger.finalize(res.reservation, "failed"),
    ledger.finalize(res.reservation, "failed"),
  ]);
  assert.deepEqual(first, { ok: true });
  assert.deepEqual(second, { ok: false, code: "NOT_IN_FLIGHT", status: "failed" });
  assert.deepEqual(await account("party_d"), { balance: 10n, reserved: 0n });
});

test("amounts beyond 2^53 stay exact through a batch", async () => {
  const big = 2n ** 62n;
  await fund("party_e", big);
  const replies = await Promise.all([
    ask("party_e", "a", big - 1n),
    ask("party_e", "b", 1n),
    ask("party_e", "c", 1n),
  ]);
  assert.deepEqual(
    replies.map((x) => (x.ok ? "OK" : x.code)),
    ["OK", "OK", "INSUFFICIENT_BALANCE"],
  );
  assert.deepEqual(await account("party_e"), { balance: big, reserved: big });
  const day = new Date().toISOString().slice(0, 10);
  assert.deepEqual(await redis.hmget(keys.gateway.account("party_e"), "d", "dv"), [day, big.toString()]);
  assert.equal(await redis.hget(keys.gateway.account("party_e"), "key_t:dv"), big.toString());
});

test("a party reserved past its balance (a late charge) or below zero is refused, free requests too, and its account is left as it was", async () => {
  // reserve.lua adds what is reserved up in the batch and writes it back once: a refused item never moves it.
  await redis.hset(keys.gateway.account("party_over"), "balance", "5", "reserved", "8");
  const over = await Promise.all([ask("party_over", "o1", 0n), ask("party_over", "o2", 1n)]);
  assert.deepEqual(
    over.map((x) => (x.ok ? "OK" : x.code)),
    ["INSUFFICIENT_BALANCE", "INSUFFICIENT_BALANCE"],
  );
  assert.deepEqual(await account("party_over"), { balance: 5n, reserved: 8n });
  await redis.hset(keys.gateway.account("party_over"), "balance", "-3", "reserved", "0");
  assert.equal((await ask("party_over", "o3", 0n)).ok, false);
  await redis.hset(keys.gateway.account("party_over"), "balance", "100", "reserved", "-1000000000000000000");
  assert.equal((await ask("party_over", "o4", 1n)).ok, false);
  // Back in order: the next batch reserves from what is stored, and writes the sum.
  await redis.hset(keys.gateway.account("party_over"), "balance", "100", "reserved", "90");
  const fit = await Promise.all([
    ask("party_over", "o5", 6n),
    ask("party_over", "o6", 4n),
    ask("party_over", "o7", 1n),
  ]);
  assert.deepEqual(
    fit.map((x) => (x.ok ? "OK" : x.code)),
    ["OK", "OK", "INSUFFICIENT_BALANCE"],
  );
  assert.deepEqual(await account("party_over"), { balance: 100n, reserved: 100n });
});

test("a reservation's events carry the same fields in the same order, so its stream stores them without names", async () => {
  await fund("party_fields", 100n);
  const res = await ask("party_fields", "f1", 3n);
  assert.ok(res.ok);
  await ledger.finalize(res.reservation, "registered", { httpStatus: 200, upstreamMs: 7, path: "/v1/x" });
  const events = await redis.xrange(keys.gateway.reservationLog("party_fields"), "-", "+");
  const names = events.map(([, flat]) => flat.filter((_, i) => i % 2 === 0));
  assert.equal(names.length, 2);
  assert.deepEqual(names[0], names[1]);
  const flat = events[1]?.[1] ?? [];
  const served: Record<string, string> = {};
  for (let i = 0; i + 1 < flat.length; i += 2) served[flat[i] as string] = flat[i + 1] as string;
  assert.deepEqual([served.x, served.l, served.p, served.s], ["200", "7", "/v1/x", "registered"]);
});

test("spend caps are exact across 2^53, where a double stops counting by one", async () => {
  // reserve.lua adds small amounts as Lua numbers and switches to digit strings at 2^53: each step of one
  // base unit across it must count, for the party's cap and the key's alike.
  const edge = 2n ** 53n;
  await fund("party_edge", 2n ** 62n);
  const ask = (i: number, cost: bigint, caps: { dailyCap?: bigint; keyDailyCap?: bigint }) =>
    ledger.reserve({
      partyId: "party_edge",
      providerKey: "p",
      idempotencyKey: `edge${i}`,
      costInUsd: "0.5",
      cost,
      keyId: `key_${Object.keys(caps)[0]}`,
      budget: encodeBudget(caps),
    });
  for (const caps of [{ dailyCap: edge + 1n }, { keyDailyCap: edge + 1n }]) {
    const which = Object.keys(caps)[0] === "dailyCap" ? 0 : 100;
    // One turn: nine costs of 10^15 - 1 (each small enough to be added as a number) and the rest up to
    // exactly 2^53, then one unit (2^53 + 1, the cap) fits and the next is over.
    const small = 10n ** 15n - 1n;
    const costs = [...Array<bigint>(9).fill(small), edge - 9n * small, 1n, 1n];
    const replies = await Promise.all(costs.map((cost, i) => ask(which + i, cost, caps)));
    assert.deepEqual(
      replies.map((x) => (x.ok ? "OK" : x.code)),
      [...Array<string>(11).fill("OK"), "SPEND_CAP_REACHED"],
      JSON.stringify(caps, (_, v) => (typeof v === "bigint" ? v.toString() : v)),
    );
    // A later turn, from the stored counter: still one unit over.
    assert.equal((await ask(which + 50, 1n, caps)).ok, false);
    // Released, so the next round starts again from a party counter of 0.
    for (const x of replies) if (x.ok) await ledger.finalize(x.reservation, "failed");
  }
  const day = new Date().toISOString().slice(0, 10);
  assert.deepEqual(await redis.hmget(keys.gateway.account("party_edge"), "d", "dv"), [day, "0"]);
});

test("a party is marked dirty when its events start a stream, not again while they wait to be drained", async () => {
  const dirty = () => redis.sismember(keys.gateway.settleDirty("party_f"), "party_f");
  // The ledger sends its SADD on this connection once the reply is in; Redis answers one connection's
  // commands in order, so a PING answered means any SADD sent before it is done (or was never sent).
  const marked = () => redis.ping();
  await fund("party_f", 100n);
  const first = await ask("party_f", "m1", 1n);
  assert.ok(first.ok);
  await marked();
  assert.equal(await dirty(), 1);
  await redis.srem(keys.gateway.settleDirty("party_f"), "party_f");
  assert.ok((await ask("party_f", "m2", 1n)).ok);
  assert.ok((await ledger.finalize(first.reservation, "registered")).ok);
  await marked();
  assert.equal(await dirty(), 0, "the stream already held events");
  // Nothing appended (a duplicate) never marks; an append to a drained (empty) stream does.
  await redis.del(keys.gateway.reservationLog("party_f"));
  assert.equal((await ask("party_f", "m2", 1n)).ok, false);
  await marked();
  assert.equal(await dirty(), 0);
  assert.ok((await ask("party_f", "m3", 1n)).ok);
  await marked();
  assert.equal(await dirty(), 1);
});

test("reserves and finalizes of one turn, for one party, each keep their own outcome", async () => {
  await fund("party_g", 10n);
  const first = await ask("party_g", "g1", 6n);
  assert.ok(first.ok);
  // Batches run in the order of their first call in the turn: g1's release comes first, so g2 and g3 fit.
  const [released, second, third] = await Promise.all([
    ledger.finalize(first.reservation, "failed"),
    ask("party_g", "g2", 6n),
    ask("party_g", "g3", 4n),
  ]);
  assert.deepEqual(released, { ok: true });
  assert.ok(second.ok && third.ok);
  assert.deepEqual(await account("party_g"), { balance: 10n, reserved: 10n });
  // And the other way round: a reserve opened first does not see the release that follows it.
  const [fourth, releasedAgain] = await Promise.all([
    ask("party_g", "g4", 6n),
    ledger.finalize(second.reservation, "failed"),
  ]);
  assert.equal(fourth.ok ? "OK" : fourth.code, "INSUFFICIENT_BALANCE");
  assert.deepEqual(releasedAgain, { ok: true });
  assert.deepEqual(await account("party_g"), { balance: 10n, reserved: 4n });
});

test("a Redis that does not know the scripts (restarted, SCRIPT FLUSH) gets their source once and answers", async () => {
  await fund("party_noscript", 100n);
  await redis.script("FLUSH");
  const [first, second] = await Promise.all([
    ask("party_noscript", "n1", 10n),
    ask("party_noscript_other", "n1", 10n),
  ]);
  assert.equal(first?.ok, true);
  assert.equal(second?.ok, false); // unfunded party: a business answer, not a Redis error
  assert.ok(first?.ok);
  assert.deepEqual(await ledger.finalize(first.reservation, "failed"), { ok: true });
  assert.deepEqual(await account("party_noscript"), { balance: 100n, reserved: 0n });
});

test("per-party limit: the requests of one window past the limit are refused, across ledgers (gateway processes) and turns, and the window resets", async () => {
  // Two ledgers on two connections stand for two gateway processes: the count lives in Redis.
  const second = createRedis(testRedisTarget(), { name: "tests-second-gateway" });
  const limited = [
    createLedger(redis, keys, 86_400, { ...NO_LIMITS, rate: { limit: 5, windowMs: 400 } }),
    createLedger(second, keys, 86_400, { ...NO_LIMITS, rate: { limit: 5, windowMs: 400 } }),
  ];
  const take = (n: number, from: number) =>
    Promise.all(
      Array.from({ length: n }, (_, i) =>
        limited[i % 2]?.reserve({
          partyId: "party_r",
          providerKey: "p",
          idempotencyKey: `r${from + i}`,
          costInUsd: "0",
          cost: 0n,
          keyId: "key_t",
        }),
      ),
    );
  await fund("party_r", 0n);
  const first = await take(3, 0);
  const burst = await take(4, 3); // same window, another turn
  // Which process's batch reaches Redis first decides which of the burst are refused, not how many.
  const codes = [...first, ...burst].map((x) => (x?.ok ? "OK" : x?.code));
  assert.deepEqual(codes.slice(0, 3), ["OK", "OK", "OK"]);
  assert.equal(codes.filter((c) => c === "OK").length, 5);
  assert.equal(codes.filter((c) => c === "RATE_LIMITED").length, 2);
  // The RateLimit fields' `r`: the two processes share one counter, so the five admitted saw 4..0 left,
  // each once, and the refused ones 0; every `t` is inside the 400 ms window.
  const left = [...first, ...burst].map((x) => x?.window?.remaining);
  assert.deepEqual(left.filter((_, i) => codes[i] === "OK").sort(), [0, 1, 2, 3, 4], JSON.stringify(left));
  assert.ok(
    left.every((r, i) => codes[i] === "OK" || r === 0),
    JSON.stringify(left),
  );
  for (const x of [...first, ...burst])
    assert.ok(
      (x?.window?.resetMs ?? -1) > 0 && (x?.window?.resetMs ?? 401) <= 400,
      JSON.stringify(x?.window),
    );
  for (const refused of burst) {
    if (!refused || refused.ok) continue;
    assert.equal(refused.code, "RATE_LIMITED");
    if (refused.code === "RATE_LIMITED")
      assert.equal(refused.retryAfterSeconds, 1, "Retry-After rounds the window's rest up to a second");
  }
  // Another party has its own window.
  const other = await limited[0]?.reserve({
    partyId: "party_s",
    providerKey: "p",
    idempotencyKey: "s1",
    costInUsd: "0",
    cost: 0n,
    keyId: "key_t",
  });
  assert.ok(other?.ok);
  // The window itself is under test: the next one starts 1 s after the first request.
  await sleep(450);
  assert.deepEqual(
    (await take(1, 10)).map((x) => (x?.ok ? "OK" : x?.code)),
    ["OK"],
    "a new window",
  );
  // A refused request is not reserved: its key stays free for a retry.
  const records = await redis.keys(keys.gateway.reservation("party_r", "*"));
  assert.equal(records.length, 6);
  await second.quit();
});

test("spend caps: two ledgers (gateway processes) sharing one party's daily cap never reserve past it; a release frees room", async () => {
  const second = createRedis(testRedisTarget(), { name: "tests-second-cap-gateway" });
  const both = [ledger, createLedger(second, keys, 86_400, NO_LIMITS)];
  await fund("party_cap", 1_000n);
  // A cap of 95 units at 10 per request: 9 fit; the monthly cap is looser.
  const ask = (i: number, cost = 10n) =>
    both[i % 2]?.reserve({
      partyId: "party_cap",
      providerKey: "p",
      idempotencyKey: `cap${i}`,
      costInUsd: "0.5",
      cost,
      keyId: "key_t",
      budget: encodeBudget({ dailyCap: 95n, monthlyCap: 500n }),
    });
  // Several turns of concurrent asks from both processes.
  const replies = (
    await Promise.all(
      Array.from({ length: 5 }, (_, turn) =>
        sleep(turn).then(() => Promise.all(Array.from({ length: 6 }, (_, j) => ask(turn * 6 + j)))),
      ),
    )
  ).flat();
  const ok = replies.filter((x) => x?.ok);
  assert.equal(ok.length, 9, JSON.stringify(replies.map((x) => (x?.ok ? "OK" : x?.code))));
  for (const x of replies)
    if (x && !x.ok) {
      assert.equal(x.code, "SPEND_CAP_REACHED");
      if (x.code === "SPEND_CAP_REACHED")
        assert.ok(x.retryAfterSeconds >= 1 && x.retryAfterSeconds <= 86_400);
    }
  const day = new Date().toISOString().slice(0, 10);
  // The counter names its day, so tomorrow's first reservation starts it again from nothing.
  assert.deepEqual(await redis.hmget(keys.gateway.account("party_cap"), "d", "dv"), [day, "90"]);
  assert.deepEqual(await account("party_cap"), { balance: 1_000n, reserved: 90n });
  // A released reservation gives its cost back to the window; a charged one would stay counted.
  const first = ok[0];
  assert.ok(first?.ok);
  assert.deepEqual(await both[1]?.finalize(first.reservation, "failed"), { ok: true });
  assert.equal(await redis.hget(keys.gateway.account("party_cap"), "dv"), "80");
  assert.ok((await ask(100))?.ok, "room again for one");
  assert.equal((await ask(101, 6n))?.ok, false, "96 > 95");
  assert.ok((await ask(102, 5n))?.ok, "95 = the cap");
  await second.quit();
});
