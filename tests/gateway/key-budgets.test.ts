import assert from "node:assert/strict";
import { after, test } from "node:test";
import { createRedis } from "@stake/db/redis/client";
import { createRedisKeys, scopeHash } from "@stake/db/redis/keys";
import {
  type Budget,
  encodeBudget,
  finalizeScript,
  reserveScript,
  runBatch,
  spendWindows,
} from "@stake/db/redis/scripts";
import { failInFlight } from "../../control-plane/src/features/gateway-settlement/hot-repo.ts";
import { createLedger, NO_PARTY_LIMITS as NO_LIMITS } from "../../gateway/src/billing/ledger.ts";
import { createLimitHeaders, keyPolicyOf } from "../../gateway/src/billing/limit-headers.ts";
import { createTestRedis, testRedisUrl } from "../helpers/redis.ts";

// A key's own budget in reserve.lua: named limits over several windows, daily and monthly
// spend caps, its last use, all counted in the one atomic step with the party's, by any number of gateway
// processes (ledgers on their own connections here; tests/faults/gateway-processes.test.ts has processes).
const r = createTestRedis();
const redis = r.redis;
const keys = createRedisKeys(r.prefix);
const second = createRedis(testRedisUrl(), { name: "tests-second-key-gateway" });
const ledgers = [createLedger(redis, keys, 86_400, NO_LIMITS), createLedger(second, keys, 86_400, NO_LIMITS)];
after(async () => {
  await second.quit();
  await r.cleanup();
});

const fund = (party: string, amount: bigint) =>
  redis.hset(keys.gateway.account(party), "balance", amount.toString(), "reserved", "0");
let n = 0;
const ask = (
  i: number,
  input: { partyId: string; keyId: string; cost?: bigint; idempotencyKey?: string } & Budget,
) =>
  (ledgers[i % 2] ?? ledgers[0]!).reserve({
    providerKey: "p",
    idempotencyKey: input.idempotencyKey ?? `kb${++n}`,
    costInUsd: "0.5",
    cost: input.cost ?? 10n,
    partyId: input.partyId,
    keyId: input.keyId,
    budget: encodeBudget(input),
  });
const codes = (xs: { ok: boolean; code?: string }[]) => xs.map((x) => (x.ok ? "OK" : x.code));

test("named limits: each window counts the key's requests across ledgers; the first one passed refuses, named, with its reset", async () => {
  await fund("party_l", 10_000n);
  const limits = [
    { name: "burst", requests: 3, windowSeconds: 1 },
    { name: "hourly", requests: 5, windowSeconds: 3600 },
  ];
  const burst = await Promise.all(
    Array.from({ length: 6 }, (_, i) => ask(i, { partyId: "party_l", keyId: "key_a", keyLimits: limits })),
  );
  assert.deepEqual(codes(burst).sort(), ["OK", "OK", "OK", "RATE_LIMITED", "RATE_LIMITED", "RATE_LIMITED"]);
  const refused = burst.find((x) => !x.ok);
  assert.ok(refused && !refused.ok && refused.code === "RATE_LIMITED");
  assert.equal(refused.limit, "burst");
  assert.equal(refused.retryAfterSeconds, 1);
  // Another key of the same party has windows of its own; a key without limits has none.
  assert.ok((await ask(0, { partyId: "party_l", keyId: "key_b", keyLimits: limits })).ok);
  const free = await ask(1, { partyId: "party_l", keyId: "key_c" });
  assert.deepEqual([free.ok, free.keyWindows], [true, ""]);

  // The RateLimit fields name each window after the party's (these ledgers have no party limit: one is
  // given): the hourly window has 2 left after the 3 served, less what the refused ones before this one took.
  const headers = createLimitHeaders({ limit: 100, windowMs: 1000 });
  const fields = headers({ remaining: 7, resetMs: 400 }, keyPolicyOf(limits), refused.keyWindows);
  assert.equal(fields[1], '"party";q=100;w=1, "burst";q=3;w=1, "hourly";q=5;w=3600');
  assert.match(fields[3] ?? "", /^"party";r=7;t=1, "burst";r=0;t=1, "hourly";r=[0-2];t=360\d$/);
  // No party limit: the key's fields alone.
  assert.equal(
    createLimitHeaders({ limit: 0, windowMs: 1000 })(undefined, keyPolicyOf(limits), "2 1000 4 5000")[3],
    '"burst";r=2;t=1, "hourly";r=4;t=5',
  );

  // After the burst window, the hourly one (6 of 5 counted) still refuses, and says so.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  const later = await ask(0, { partyId: "party_l", keyId: "key_a", keyLimits: limits });
  assert.ok(!later.ok && later.code === "RATE_LIMITED");
  assert.equal(later.limit, "hourly");
  assert.ok(later.retryAfterSeconds > 3000, String(later.retryAfterSeconds));
});

test("key spend caps: two ledgers never reserve past a key's daily cap; a release frees room; the party's cap still applies", async () => {
  await fund("party_k", 100_000n);
  const w = spendWindows(Date.now());
  const capped = { partyId: "party_k", keyId: "key_d", keyDailyCap: 95n, keyMonthlyCap: 500n };
  const replies = await Promise.all(Array.from({ length: 20 }, (_, i) => ask(i, capped)));
  const ok = replies.filter((x) => x.ok);
  assert.equal(ok.length, 9, JSON.stringify(codes(replies)));
  for (const x of replies)
    if (!x.ok)
      assert.deepEqual(
        [x.code, x.code === "SPEND_CAP_REACHED" && x.limit],
        ["SPEND_CAP_REACHED", "key-daily"],
      );
  const counters = keys.gateway.account("party_k");
  assert.deepEqual(await redis.hmget(counters, "key_d:d", "key_d:dv", "key_d:m", "key_d:mv"), [
    w.day,
    "90",
    w.month,
    "90",
  ]);
  // Another key of the party is not held by this key's cap.
  assert.ok((await ask(0, { partyId: "party_k", keyId: "key_e", keyDailyCap: 95n })).ok);
  const first = ok[0];
  assert.ok(first?.ok);
  assert.deepEqual(await ledgers[1]?.finalize(first.reservation, "failed"), { ok: true });
  assert.equal(await redis.hget(counters, "key_d:dv"), "80", "a release gives the key's cost back");
  assert.ok((await ask(0, { ...capped, cost: 15n })).ok, "95 = the cap");
  assert.equal((await ask(1, { ...capped, cost: 1n })).ok, false);
  // The monthly cap of a key, and the party's cap over a key with room left: each named.
  const monthly = await ask(0, { partyId: "party_k", keyId: "key_f", keyMonthlyCap: 5n });
  assert.ok(!monthly.ok && monthly.code === "SPEND_CAP_REACHED" && monthly.limit === "key-monthly");
  const party = await ask(0, { partyId: "party_k", keyId: "key_f", dailyCap: 50n, keyDailyCap: 1000n });
  assert.ok(!party.ok && party.code === "SPEND_CAP_REACHED" && party.limit === "party-daily");
});

test("last use: every request reaching the reservation stamps its key, refused ones included", async () => {
  await fund("party_u", 5n);
  const before = Date.now();
  assert.equal((await ask(0, { partyId: "party_u", keyId: "key_u" })).ok, false, "insufficient balance");
  const used = Number(await redis.hget(keys.gateway.account("party_u"), "key_u:u"));
  assert.ok(used >= before && used <= Date.now(), String(used));
});

test("the reaper's release gives a key's spend back; a late charge (served after the reaper) counts again, never refused", async () => {
  await fund("party_r", 1_000n);
  const capped = { partyId: "party_r", keyId: "key_r", keyDailyCap: 10n };
  const reserved = await ask(0, { ...capped, idempotencyKey: "reaped" });
  assert.ok(reserved.ok);
  const counters = keys.gateway.account("party_r");
  assert.equal(await redis.hget(counters, "key_r:dv"), "10");
  // What the settlement worker's reaper runs for a reservation its gateway left in flight.
  const reaped = await failInFlight(
    redis,
    keys,
    "party_r",
    [{ id: reserved.reservation.id, providerKey: "p", idempotencyKey: "reaped" }],
    Date.now(),
    60,
  );
  assert.deepEqual(reaped[0], ["OK"]);
  assert.equal(await redis.hget(counters, "key_r:dv"), "0");
  assert.ok((await ask(1, capped)).ok, "room again");
  // The first request was served after all: charged under a new reservation, counted past the cap.
  const late = await ledgers[0]?.finalize(reserved.reservation, "registered");
  assert.ok(late?.ok && late.lateCharge);
  assert.equal(await redis.hget(counters, "key_r:dv"), "20");
  assert.equal((await ask(0, capped)).ok, false, "the cap holds afterwards");
});

test("a release gives back only to the windows its reservation was counted in, and only while they are current", async () => {
  // The last ms of November and the first of December: a new day and a new month. Each script call names
  // the counters of its own time, and a record's "t" says which ones counted it.
  const party = "party_m";
  const g = keys.gateway;
  await fund(party, 1_000n);
  const lastOfNov = Date.UTC(2026, 10, 30, 23, 59, 59, 999);
  const firstOfDec = lastOfNov + 1;
  const reserveAt = async (at: number, idem: string, cost: bigint) => {
    const scope = scopeHash("p", idem);
    const id = `rsv_${idem}`;
    const [reply] = await runBatch(
      redis,
      reserveScript,
      keys,
      party,
      [at, NO_LIMITS.rate, NO_LIMITS.failures],
      [
        {
          key: g.reservation(party, scope),
          item: { cost, id, idempotencyKey: idem, providerKey: "p", costInUsd: "0.5", scope, keyId: "key_m" },
        },
      ],
    );
    assert.equal(reply?.[0], "OK");
    return { key: g.reservation(party, scope), item: { outcome: "failed" as const, expectedId: id } };
  };
  // The party's counters (in its account hash) and the key's: each says the window it counts.
  const counters = async () => [
    ...(await redis.hmget(g.account(party), "d", "dv", "m", "mv")),
    ...(await redis.hmget(g.account(party), "key_m:d", "key_m:dv", "key_m:m", "key_m:mv")),
  ];
  const nov = await reserveAt(lastOfNov, "nov", 10n);
  const november = ["2026-11-30", "10", "2026-11", "10"];
  assert.deepEqual(await counters(), [...november, ...november]);
  const dec = await reserveAt(firstOfDec, "dec", 7n);
  const december = ["2026-12-01", "7", "2026-12", "7"];
  assert.deepEqual(await counters(), [...december, ...december]);
  // Both released in December: November's window is over (nothing given back to it, nor taken from
  // December's); December's gets its 7 back.
  const released = await runBatch(redis, finalizeScript, keys, party, [firstOfDec + 5, 60, null], [nov, dec]);
  assert.deepEqual(released.slice(0, 2), [["OK"], ["OK"]]);
  const givenBack = ["2026-12-01", "0", "2026-12", "0"];
  assert.deepEqual(await counters(), [...givenBack, ...givenBack]);
});
