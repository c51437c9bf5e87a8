import assert from "node:assert/strict";
import { after, afterEach, before, test } from "node:test";
import { coinsToBaseUnits, formatCoins } from "@stake/db/coin";
import { newId } from "@stake/db/ids";
import { scopeHash } from "@stake/db/redis/keys";
import { reserveScript, runBatch } from "@stake/db/redis/scripts";
import { sql } from "drizzle-orm";
import { createGatewayAccountRepo } from "../../control-plane/src/features/gateway-account/repo.ts";
import { presentUsage, usageCsv } from "../../control-plane/src/features/gateway-account/usage.ts";
import { checkParty } from "../../control-plane/src/features/gateway-settlement/check.ts";
import { drainReservationLog } from "../../control-plane/src/features/gateway-settlement/drain.ts";
import { readBalance } from "../../control-plane/src/features/gateway-settlement/funding.ts";
import { startSettlementLoop } from "../../control-plane/src/features/gateway-settlement/loop.ts";
import {
  markStaleParties,
  runSettlementPass,
  settlePartyOnce,
} from "../../control-plane/src/features/gateway-settlement/pass.ts";
import {
  SETTLEMENT_STEPS,
  type SettlementDeps,
} from "../../control-plane/src/features/gateway-settlement/types.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import { createLedger, NO_PARTY_LIMITS as NO_LIMITS } from "../../gateway/src/billing/ledger.ts";
import { ledgerCommands } from "../../scripts/operator/ledger.ts";
import { eventually } from "../helpers/eventually.ts";
import { createGatewayHarness, type GatewayHarness } from "../helpers/gateway.ts";
import { send } from "../helpers/http-client.ts";
import { operatorContext } from "../helpers/operator.ts";
import { startProvider } from "../helpers/provider.ts";
import { settlementBooks } from "./settlement-books.ts";

// docs/architecture.md §6 step 7: drain the event stream into Postgres, settle into ledger debits, reap, rebuild Redis.
let h: GatewayHarness;
let provider: Awaited<ReturnType<typeof startProvider>>;
let deps: SettlementDeps;
let books: ReturnType<typeof settlementBooks>;
const touched: string[] = [];
// 0.01 USD at 0.5 USD/coin = 0.02 coin = 2e8 base units.
const COST = 200_000_000n;
const REAP_AFTER = 60_000;

before(async () => {
  h = await createGatewayHarness();
  provider = await startProvider();
  await h.setRate("0.5");
  await h.addProvider("echo", provider.url, "0.01");
  deps = { db: h.db, redis: h.redis, keys: h.keys };
  books = settlementBooks(h, deps);
});
after(async () => {
  await h.close();
  await provider.close();
});
afterEach(async () => {
  for (const p of touched) {
    await books.checkBooks(p);
    assert.deepEqual(await checkParty(deps, p), [], "ledger check clean");
  }
});

async function account(coins = "10") {
  const a = await h.createAccount({ coins });
  touched.push(a.partyId as string);
  return { ...a, partyId: a.partyId as string };
}
let n = 0;
function call(apiKey: string, path = "/echo") {
  return send(`${h.url}/gateway/echo${path}`, {
    headers: ["x-gateway-api-key", apiKey, "idempotency-key", `k-${++n}`],
  });
}
const TTL = 172_800;
const pass = () => runSettlementPass(deps, { reapAfterMs: REAP_AFTER, ttlSeconds: TTL });

test("paid requests settle in one pass: one applied debit each, reserved back to 0; failures are not charged", async () => {
  const a = await account("10");
  const paid = 12;
  for (let i = 0; i < paid; i++) assert.equal((await call(a.apiKey)).status, 200);
  for (let i = 0; i < 3; i++) assert.equal((await call(a.apiKey, "/status?code=500")).status, 500);
  assert.equal((await h.account(a.partyId)).reserved, COST * BigInt(paid));

  const result = await pass();
  assert.equal(result.settled, paid);
  const all = await books.rows(a.partyId);
  assert.equal(all.filter((r) => r.status === "settled").length, paid);
  assert.equal(all.filter((r) => r.status === "failed").length, 3);
  assert.deepEqual(
    new Set(await books.audit(a.partyId)),
    new Set(all.filter((r) => r.status === "settled").map((r) => r.id)),
  );
  assert.equal((await books.debits(a.partyId)).length, 1, "one set-based debit for the pass");
  const { balance, reserved } = await readBalance(h.redis, h.keys, a.partyId);
  assert.equal(reserved, 0n);
  assert.equal(balance, 10_0000000000n - COST * BigInt(paid));
  assert.equal(await h.redis.xlen(h.keys.gateway.reservationLog(a.partyId)), 0, "stream trimmed");
  assert.ok((await h.reservations(a.partyId)).every((r) => r.s === "settled" || r.s === "failed"));
});

test("replayed events and repeated passes debit once and never move a status back", async () => {
  const a = await account("10");
  for (let i = 0; i < 4; i++) assert.equal((await call(a.apiKey)).status, 200);
  const events = await h.redis.xrange(h.keys.gateway.reservationLog(a.partyId), "-", "+");
  assert.equal(events.length, 8, "reserve + finalize per request");
  await pass();
  const before = await readBalance(h.redis, h.keys, a.partyId);
  for (const [, fields] of events)
    await h.redis.xadd(h.keys.gateway.reservationLog(a.partyId), "*", ...fields);
  await h.redis.sadd(h.keys.gateway.settleDirty(a.partyId), a.partyId);
  await pass();
  await h.redis.sadd(h.keys.gateway.settleDirty(a.partyId), a.partyId);
  await pass();
  assert.deepEqual(await readBalance(h.redis, h.keys, a.partyId), before);
  assert.equal((await books.audit(a.partyId)).length, 4);
  assert.ok((await books.rows(a.partyId)).every((r) => r.status === "settled"));
});

for (const step of SETTLEMENT_STEPS) {
  test(`a crash after ${step} is repaired by running the pass again`, async () => {
    const a = await account("10");
    for (let i = 0; i < 3; i++) assert.equal((await call(a.apiKey)).status, 200);
    await h.redis.srem(h.keys.gateway.settleDirty(a.partyId), a.partyId);
    // The last step belongs to charging what Postgres holds as registered: drained without charging
    // (as the account API drains), which the drain of a pass does not leave.
    if (step === "debited-in-postgres") await drainReservationLog(deps, a.partyId);
    await assert.rejects(
      settlePartyOnce(deps, a.partyId, {
        reapAfterMs: REAP_AFTER,
        ttlSeconds: TTL,
        afterStep: (at) => {
          if (at === step) throw new Error(`crash after ${at}`);
        },
      }),
      /crash/,
    );
    await h.redis.sadd(h.keys.gateway.settleDirty(a.partyId), a.partyId);
    await pass();
    await h.redis.sadd(h.keys.gateway.settleDirty(a.partyId), a.partyId);
    await pass();
    assert.ok((await books.rows(a.partyId)).every((r) => r.status === "settled"));
    assert.equal((await books.audit(a.partyId)).length, 3);
    assert.deepEqual(await readBalance(h.redis, h.keys, a.partyId), {
      balance: 10_0000000000n - 3n * COST,
      reserved: 0n,
    });
  });
}

/** A reservation taken by a gateway that then died: reserve.lua at `at`, never finalized. */
async function orphan(partyId: string, at: number, key = `orphan-${++n}`) {
  const id = newId("reservation");
  const g = h.keys.gateway;
  const scope = scopeHash("echo", key);
  const reply = await runBatch(
    h.redis,
    reserveScript,
    h.keys,
    partyId,
    [at, NO_LIMITS.rate, NO_LIMITS.failures],
    [
      {
        key: g.reservation(partyId, scope),
        item: {
          cost: COST,
          id,
          idempotencyKey: key,
          providerKey: "echo",
          costInUsd: "0.0100000000",
          scope,
          keyId: "",
        },
      },
    ],
  );
  assert.deepEqual(reply[0], ["OK", "", ""], "no request limit: no RateLimit state, and no key limits");
  await h.redis.sadd(g.settleDirty(partyId), partyId);
  return id;
}

test("settlement passes running during concurrent paid traffic (also against a balance that runs out) debit each paid request once", async () => {
  // COST is 0.02 coin, so 1 coin covers 50 paid requests; 80 of the 120 ask to be paid.
  const a = await account("1");
  let running = true;
  let passes = 0;
  const settler = (async () => {
    while (running) {
      await pass();
      passes++;
    }
  })();
  const statuses: number[] = [];
  for (let wave = 0; wave < 4; wave++) {
    const codes = ["/echo", "/echo", "/status?code=503"];
    const replies = await Promise.all(
      Array.from({ length: 30 }, (_, i) => call(a.apiKey, codes[i % codes.length])),
    );
    statuses.push(...replies.map((r) => r.status));
  }
  running = false;
  await settler;
  await pass();
  assert.ok(passes > 0, "passes overlapped the traffic");

  const paid = statuses.filter((c) => c === 200).length;
  // A 503 holds its cost until released, so near the end a paid request may be refused that a moment later
  // would have fitted: never more than the balance covers, and never less than that minus the 503s' holds.
  assert.ok(paid <= 50 && paid >= 40, `paid ${paid}`);
  assert.ok(statuses.every((c) => c === 200 || c === 403 || c === 503));
  assert.equal((await books.audit(a.partyId)).length, paid, "each paid request charged once");
  assert.deepEqual(await readBalance(h.redis, h.keys, a.partyId), {
    balance: 1_0000000000n - BigInt(paid) * COST,
    reserved: 0n,
  });
});

test("a 2xx whose body breaks off is registered, then failed: Postgres ends at failed and nothing is debited", async () => {
  const a = await account("10");
  await assert.rejects(call(a.apiKey, "/reset-mid"));
  // The gateway fails the registered reservation once it sees the provider's body break off.
  await eventually(async () => (await h.account(a.partyId)).reserved === 0n, {
    what: "the broken-off reservation to be released",
  });
  const result = await pass();
  assert.equal(result.errors, 0);
  const rowsOf = await books.rows(a.partyId);
  assert.deepEqual(
    rowsOf.map((r) => r.status),
    ["failed"],
  );
  assert.equal(await books.sum("debit", a.partyId), 0n);
  assert.deepEqual(await readBalance(h.redis, h.keys, a.partyId), { balance: 10_0000000000n, reserved: 0n });
});

test("the reaper fails an old in-flight reservation and releases its funds; a young one is left alone", async () => {
  const a = await account("10");
  const old = await orphan(a.partyId, Date.now() - REAP_AFTER - 5_000);
  const young = await orphan(a.partyId, Date.now());
  assert.equal((await h.account(a.partyId)).reserved, 2n * COST);
  const result = await pass();
  assert.equal(result.reaped, 1);
  const byId = new Map((await books.rows(a.partyId)).map((r) => [r.id, r.status]));
  assert.equal(byId.get(old), "failed");
  assert.equal(byId.get(young), "request_in_flight");
  assert.deepEqual(await readBalance(h.redis, h.keys, a.partyId), {
    balance: 10_0000000000n,
    reserved: COST,
  });
  await h.redis.sadd(h.keys.gateway.settleDirty(a.partyId), a.partyId);
  assert.equal((await pass()).reaped, 0, "never reaped twice");
  assert.equal((await h.account(a.partyId)).reserved, COST);
  assert.equal((await books.debits(a.partyId)).length, 0);
});

/** A reservation the reaper failed while its gateway was still serving it; `finalize` is that gateway's. */
async function reapedWhileServed(partyId: string) {
  const key = `late-${++n}`;
  const id = await orphan(partyId, Date.now() - REAP_AFTER - 5_000, key);
  assert.equal((await pass()).reaped, 1);
  assert.equal((await h.account(partyId)).reserved, 0n, "released by the reaper");
  const ledger = createLedger(h.redis, h.keys, TTL, NO_LIMITS);
  const handle = {
    id,
    partyId,
    recordKey: h.keys.gateway.reservation(partyId, scopeHash("echo", key)),
    cost: COST,
  };
  return { id, handle, finalize: () => ledger.finalize(handle, "registered") };
}

test("a request served after the reaper released its reservation is charged once, under a new reservation", async () => {
  const a = await account("10");
  const late = await reapedWhileServed(a.partyId);
  const done = await late.finalize();
  assert.ok(done.ok && done.lateCharge, JSON.stringify(done));
  assert.equal(late.handle.id, done.lateCharge, "the handle now names the charge");
  assert.equal((await h.account(a.partyId)).reserved, COST, "reserved again");
  // The gateway retrying its finalize (a lost reply) finds the record taken over: nothing moves twice.
  late.handle.id = late.id;
  assert.deepEqual(await late.finalize(), { ok: false, code: "NOT_FOUND" });
  assert.equal((await h.account(a.partyId)).reserved, COST);

  await pass();
  await h.redis.sadd(h.keys.gateway.settleDirty(a.partyId), a.partyId);
  await pass();
  const byId = new Map((await books.rows(a.partyId)).map((r) => [r.id, r]));
  assert.equal(byId.get(late.id)?.status, "failed", "the reaped reservation stays failed");
  assert.equal(byId.get(done.lateCharge)?.status, "settled");
  assert.deepEqual(await books.audit(a.partyId), [done.lateCharge], "exactly one charge");
  assert.equal(await books.sum("debit", a.partyId), COST);
  assert.deepEqual(await readBalance(h.redis, h.keys, a.partyId), {
    balance: 10_0000000000n - COST,
    reserved: 0n,
  });
});

test("end to end: a request the reaper released while its provider was still answering is charged once when the answer comes", async () => {
  const a = await account("10");
  const release = provider.holdRequests();
  const pending = call(a.apiKey, "/held");
  await eventually(async () => (await h.account(a.partyId)).reserved === COST, {
    what: "the reservation in flight",
  });
  // The worker, its clock past the reap age (as after a long Redis outage), releases it.
  const later = Date.now() + REAP_AFTER + 1_000;
  await h.redis.sadd(h.keys.gateway.settleDirty(a.partyId), a.partyId);
  const reaped = await runSettlementPass(deps, {
    reapAfterMs: REAP_AFTER,
    ttlSeconds: TTL,
    now: () => later,
  });
  assert.equal(reaped.reaped, 1);
  assert.equal((await h.account(a.partyId)).reserved, 0n);
  release();
  assert.equal((await pending).status, 200, "the provider answered: the request was served");
  await eventually(async () => (await h.account(a.partyId)).reserved === COST, { what: "the late charge" });
  await pass();
  await h.redis.sadd(h.keys.gateway.settleDirty(a.partyId), a.partyId);
  await pass();
  assert.deepEqual((await books.rows(a.partyId)).map((r) => r.status).sort(), ["failed", "settled"]);
  assert.equal((await books.audit(a.partyId)).length, 1, "charged once");
  assert.deepEqual(await readBalance(h.redis, h.keys, a.partyId), {
    balance: 10_0000000000n - COST,
    reserved: 0n,
  });
});

test("a late charge may take the balance below zero; the party's next requests are refused as insufficient", async () => {
  const a = await h.createAccount({ coins: "0.02" }); // exactly one request
  const partyId = a.partyId as string;
  const late = await reapedWhileServed(partyId);
  // The released funds are spent before the late finalize lands.
  assert.equal((await call(a.apiKey)).status, 200);
  assert.ok((await late.finalize()).ok);
  await pass();
  await h.redis.sadd(h.keys.gateway.settleDirty(partyId), partyId);
  await pass();
  assert.deepEqual(await readBalance(h.redis, h.keys, partyId), { balance: -COST, reserved: 0n });
  assert.equal((await books.audit(partyId)).length, 2, "both served requests charged");
  assert.equal((await call(a.apiKey)).status, 403);
  assert.deepEqual(await checkParty(deps, partyId), [], "ledger check clean");
});

test("a party whose in-flight reservation turns reapable with no traffic left is marked by the stale scan and reaped", async () => {
  const a = await account("10");
  const id = await orphan(a.partyId, Date.now());
  assert.equal((await pass()).reaped, 0, "young: drained, not reaped");
  const g = h.keys.gateway;
  assert.equal(await h.redis.sismember(g.settleDirty(a.partyId), a.partyId), 0, "nothing marks it again");
  const later = Date.now() + REAP_AFTER + 1_000;
  assert.ok((await markStaleParties(deps, REAP_AFTER, Date.now())) >= 0);
  assert.equal(await h.redis.sismember(g.settleDirty(a.partyId), a.partyId), 0, "not stale yet");
  assert.ok((await markStaleParties(deps, REAP_AFTER, later)) >= 1);
  assert.equal(await h.redis.sismember(g.settleDirty(a.partyId), a.partyId), 1);
  const result = await runSettlementPass(deps, {
    reapAfterMs: REAP_AFTER,
    ttlSeconds: TTL,
    now: () => later,
  });
  assert.ok(result.reaped >= 1);
  const byId = new Map((await books.rows(a.partyId)).map((r) => [r.id, r.status]));
  assert.equal(byId.get(id), "failed");
  assert.equal((await h.account(a.partyId)).reserved, 0n);
});

test("ledger rebuild-redis restores balance, reserved, applied credits and records after Redis loss", async () => {
  const a = await account("10");
  for (let i = 0; i < 3; i++) assert.equal((await call(a.apiKey)).status, 200);
  await pass();
  for (let i = 0; i < 2; i++) assert.equal((await call(a.apiKey)).status, 200); // registered, unsettled
  await orphan(a.partyId, Date.now()); // in flight
  const before = await h.account(a.partyId);
  const records = new Map((await h.reservations(a.partyId)).map((r) => [r.id, r]));
  assert.equal(before.reserved, 3n * COST);

  const g = h.keys.gateway;
  const lost = [g.account(a.partyId), g.applied(a.partyId)];
  await drainReservationLog(deps, a.partyId); // the events reached Postgres before Redis was lost
  for (const r of records.values()) lost.push(g.reservation(a.partyId, scopeHash(r.k ?? "", r.i ?? "")));
  await h.redis.del(...lost, g.reservationLog(a.partyId));
  assert.equal((await h.account(a.partyId)).balance, 0n);

  const ctx = operatorContext(h);
  const command = (name: string) => {
    const c = ledgerCommands[name];
    assert.ok(c, name);
    return c;
  };
  const out = await command("ledger rebuild-redis").run(ctx, {
    positionals: [],
    flags: { party: a.partyId },
  });
  assert.equal((out.data as unknown[]).length, 1);
  assert.deepEqual(await h.account(a.partyId), before);
  const rebuilt = new Map((await h.reservations(a.partyId)).map((r) => [r.id, r]));
  assert.deepEqual(rebuilt, records);
  assert.equal(await h.redis.scard(g.applied(a.partyId)), 1, "the funding credit counts as applied");

  // The rebuilt state settles normally, and a duplicate idempotency key is still refused.
  const settle = await command("ledger settle").run(ctx, { positionals: [], flags: { once: true } });
  assert.ok((settle.data as { settled: number }).settled >= 2);
  assert.equal((await h.account(a.partyId)).reserved, COST);
  const dup = await send(`${h.url}/gateway/echo/echo`, {
    headers: ["x-gateway-api-key", a.apiKey, "idempotency-key", `k-${n - 1}`],
  });
  assert.equal(dup.status, 409);
});

test("a paid request landing while the worker drains (after its read, before its trim) is marked for the next pass", async () => {
  const a = await account("10");
  assert.equal((await call(a.apiKey)).status, 200);
  const dirty = () => h.redis.sismember(h.keys.gateway.settleDirty(a.partyId), a.partyId);
  await h.redis.srem(h.keys.gateway.settleDirty(a.partyId), a.partyId);
  let raced = false;
  const racing = new Proxy(h.redis, {
    get(target, prop) {
      const value = Reflect.get(target, prop, target);
      if (prop !== "xtrim" || raced) return typeof value === "function" ? value.bind(target) : value;
      return async (...args: Parameters<typeof target.xtrim>) => {
        raced = true;
        // The stream still holds the drained events, so the gateway sees it non-empty and marks nothing.
        assert.equal((await call(a.apiKey)).status, 200);
        return target.xtrim(...args);
      };
    },
  });
  await drainReservationLog({ ...deps, redis: racing }, a.partyId);
  assert.ok(raced);
  assert.equal(await dirty(), 1, "events left after the trim mark the party again");
  await pass();
  assert.equal(await dirty(), 0);
  assert.deepEqual(await readBalance(h.redis, h.keys, a.partyId), {
    balance: 10_0000000000n - 2n * COST,
    reserved: 0n,
  });
});

test("the worker's settlement loop settles paid requests on its own within a few intervals", async () => {
  const a = await account("10");
  const loop = startSettlementLoop({
    ...deps,
    intervalMs: 20,
    reapAfterMs: REAP_AFTER,
    ttlSeconds: TTL,
    leaseMs: 15_000,
    logger: createLogger({ level: "silent", service: "test" }),
  });
  try {
    for (let i = 0; i < 3; i++) assert.equal((await call(a.apiKey)).status, 200);
    await eventually(async () => (await h.account(a.partyId)).reserved === 0n, {
      what: "the loop to settle the three paid requests",
    });
    assert.deepEqual(await readBalance(h.redis, h.keys, a.partyId), {
      balance: 10_0000000000n - 3n * COST,
      reserved: 0n,
    });
  } finally {
    await loop.close();
  }
  assert.equal(loop.isRunning(), false);
});

test("ledger check prints every difference between Redis and Postgres and exits 1; clean, it exits 0", async () => {
  const a = await account("10");
  for (let i = 0; i < 3; i++) assert.equal((await call(a.apiKey)).status, 200);
  await pass();
  assert.equal((await call(a.apiKey)).status, 200); // registered, unsettled
  const ctx = operatorContext(h);
  const check = ledgerCommands["ledger check"];
  assert.ok(check);
  const clean = await check.run(ctx, { positionals: [], flags: { party: a.partyId } });
  assert.equal(clean.exitCode, 0, clean.text);

  const g = h.keys.gateway;
  const [open] = (await h.reservations(a.partyId)).filter((r) => r.s === "registered");
  assert.ok(open?.id);
  const record = g.reservation(a.partyId, scopeHash(open.k ?? "", open.i ?? ""));
  await h.redis.hincrby(g.account(a.partyId), "balance", 7);
  await h.redis.hset(record, "s", "failed");
  await h.redis.srem(g.applied(a.partyId), ...(await h.redis.smembers(g.applied(a.partyId))));
  const dirty = await check.run(ctx, { positionals: [], flags: { party: a.partyId } });
  assert.equal(dirty.exitCode, 1);
  const items = (dirty.data as { differences: { item: string }[] }).differences.map((d) => d.item);
  assert.ok(items.includes("balance"), dirty.text);
  assert.ok(items.includes(`reservation ${open.id}`), dirty.text);
  assert.ok(items.includes("reserved (Σ open records)"), dirty.text);
  assert.ok(
    items.some((i) => i.startsWith("credit ")),
    dirty.text,
  );
  assert.match(dirty.text, /balance: Redis \d+ ≠ Postgres \d+/);

  // Put it back so the file's books check passes.
  await h.redis.hincrby(g.account(a.partyId), "balance", -7);
  await h.redis.hset(record, "s", "registered");
  await ledgerCommands["ledger rebuild-redis"]?.run(ctx, { positionals: [], flags: { party: a.partyId } });
  assert.equal((await check.run(ctx, { positionals: [], flags: { party: a.partyId } })).exitCode, 0);
});

test("a reservation record never expires while open: its idempotency window starts when it is settled or failed", async () => {
  const a = await account("10");
  assert.equal((await call(a.apiKey)).status, 200);
  assert.equal((await call(a.apiKey, "/status?code=500")).status, 500);
  const g = h.keys.gateway;
  const recordOf = (r: Record<string, string>) => g.reservation(a.partyId, scopeHash(r.k ?? "", r.i ?? ""));
  const records = await h.reservations(a.partyId);
  const open = records.find((r) => r.s === "registered");
  const failed = records.find((r) => r.s === "failed");
  assert.ok(open && failed);
  assert.equal(await h.redis.pttl(recordOf(open)), -1, "no TTL while registered");
  assert.ok((await h.redis.pttl(recordOf(failed))) > 0, "a failed record lives out the window");

  // A short window: the settled record expires a second later, and only then.
  await runSettlementPass(deps, { reapAfterMs: REAP_AFTER, ttlSeconds: 1 });
  const ttl = await h.redis.pttl(recordOf(open));
  assert.ok(ttl > 0 && ttl <= 1000, `settled record TTL ${ttl} ms`);
  assert.equal((await books.rows(a.partyId)).find((r) => r.id === open.id)?.status, "settled");
});

test("the usage roll-up and its CSV agree with ledger check to the base unit after a mixed load (paid, failed, released, late-charged)", async () => {
  const a = await account("10");
  const statuses: number[] = [];
  // A body broken off after its 2xx headers reaches the client as a cut connection (-1 here).
  const go = async (path: string) =>
    statuses.push(
      await call(a.apiKey, path).then(
        (r) => r.status,
        () => -1,
      ),
    );
  for (let i = 0; i < 5; i++) await go("/echo"); // paid
  await go("/status?code=302"); // paid (3xx)
  for (let i = 0; i < 3; i++) await go("/status?code=500"); // failed, released
  for (let i = 0; i < 2; i++) await go("/status?code=404"); // failed, released
  await pass(); // some close before the rest arrive: the roll-up adds pass by pass
  await go("/reset-mid"); // a 2xx whose body breaks off: registered, then released
  // Reaped while its provider was still answering, then charged late under a new reservation.
  const release = provider.holdRequests();
  const pending = call(a.apiKey, "/held");
  await eventually(async () => (await h.account(a.partyId)).reserved === COST, { what: "in flight" });
  await h.redis.sadd(h.keys.gateway.settleDirty(a.partyId), a.partyId);
  const later = Date.now() + REAP_AFTER + 1_000;
  assert.equal(
    (await runSettlementPass(deps, { reapAfterMs: REAP_AFTER, ttlSeconds: TTL, now: () => later })).reaped,
    1,
  );
  release();
  assert.equal((await pending).status, 200);
  await eventually(async () => (await h.account(a.partyId)).reserved === COST, { what: "the late charge" });
  await h.redis.sadd(h.keys.gateway.settleDirty(a.partyId), a.partyId);
  await pass();
  await h.redis.sadd(h.keys.gateway.settleDirty(a.partyId), a.partyId);
  await pass();

  // ledger check (the operator CLI) is clean, and gives the reference figures with the ledger itself.
  const check = await ledgerCommands["ledger check"]?.run(operatorContext(h), {
    positionals: [],
    flags: { party: a.partyId },
  });
  assert.equal(check?.exitCode, 0, check?.text);
  const [ledger] = await h.db.execute<{
    debited: string;
    released: string;
    failed: string;
    settled: string;
  }>(sql`
    select
      (select coalesce(sum(amount), 0)::text from ledger_entries where party_id = ${a.partyId} and kind = 'debit') as debited,
      (select coalesce(sum(cost), 0)::text from reservations where party_id = ${a.partyId} and status = 'failed') as released,
      (select count(*)::text from reservations where party_id = ${a.partyId} and status = 'failed') as failed,
      (select count(*)::text from reservations where party_id = ${a.partyId} and status = 'settled') as settled`);
  const { balance } = await readBalance(h.redis, h.keys, a.partyId);
  assert.equal(BigInt(ledger?.debited ?? -1), 10_0000000000n - balance, "debits = what left the balance");

  const today = new Date().toISOString().slice(0, 10);
  const usage = presentUsage(
    { from: today, to: today },
    await createGatewayAccountRepo(h.db).listUsage(a.partyId, today, today),
  );
  assert.equal(usage.rows.length, 1, JSON.stringify(usage.rows)); // one key, one provider, one day
  const row = usage.rows[0];
  assert.ok(row);
  assert.equal(coinsToBaseUnits(usage.totals.charged), BigInt(ledger?.debited ?? -1), "charged = Σ debits");
  assert.equal(coinsToBaseUnits(usage.totals.charged), COST * 7n, "6 paid + the late charge");
  assert.equal(
    coinsToBaseUnits(usage.totals.released),
    BigInt(ledger?.released ?? -1),
    "released = Σ failed",
  );
  assert.equal(
    coinsToBaseUnits(usage.totals.released),
    COST * 7n,
    "5 provider failures, the broken body, the reaped",
  );
  assert.equal(usage.totals.settled, Number(ledger?.settled));
  assert.equal(usage.totals.failed, Number(ledger?.failed));
  assert.equal(usage.totals.requests, 14);
  assert.equal(row.keyId, a.keyId);
  assert.equal(row.providerKey, "echo");
  // The reaped reservation got no answer (none); its late charge and the broken body count as 2xx.
  assert.deepEqual(row.status, { "2xx": 7, "3xx": 1, "4xx": 2, "5xx": 3, none: 1 });
  assert.deepEqual(statuses.sort(), [-1, 200, 200, 200, 200, 200, 302, 404, 404, 500, 500, 500]);
  assert.ok(
    row.upstreamP50Ms !== null && row.upstreamP50Ms <= (row.upstreamP95Ms ?? -1),
    JSON.stringify(row),
  );

  const csv = usageCsv(usage).split("\r\n");
  assert.equal(csv[0]?.split(",").length, 15);
  assert.deepEqual(csv[1]?.split(",").slice(0, 8), [
    today,
    a.keyId,
    "echo",
    "14",
    "7",
    formatCoins(COST * 7n),
    "7",
    formatCoins(COST * 7n),
  ]);
  // A replayed pass adds nothing: each reservation is counted when it closes, once.
  await h.redis.sadd(h.keys.gateway.settleDirty(a.partyId), a.partyId);
  await pass();
  const again = await createGatewayAccountRepo(h.db).listUsage(a.partyId, today, today);
  assert.equal(again[0]?.requests, 14);
});
