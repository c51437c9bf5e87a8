import assert from "node:assert/strict";
import { after, afterEach, before, test } from "node:test";
import { newId } from "@stake/db/ids";
import { readBalance } from "@stake/db/ledger";
import { scopeHash } from "@stake/db/redis/keys";
import { defineLedgerScripts } from "@stake/db/redis/scripts";
import { ledgerEntries, reservations } from "@stake/db/schema/index";
import {
  drainReservationLog,
  runSettlementPass,
  type SettlementDeps,
  type SettlementStep,
  settlePartyOnce,
} from "@stake/db/settlement";
import { and, eq, inArray } from "drizzle-orm";
import { startSettlementLoop } from "../../control-plane/src/features/gateway-settlement/loop.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import { ledgerCommands } from "../../scripts/operator/ledger.ts";
import { createGatewayHarness, type GatewayHarness } from "../helpers/gateway.ts";
import { send } from "../helpers/http-client.ts";
import { startProvider } from "../helpers/provider.ts";

// DESIGN §6 step 7: drain the event stream into Postgres, settle into ledger debits, reap, rebuild Redis.
let h: GatewayHarness;
let provider: Awaited<ReturnType<typeof startProvider>>;
let deps: SettlementDeps;
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
});
after(async () => {
  await h.close();
  await provider.close();
});
afterEach(async () => {
  for (const p of touched) await checkBooks(p);
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
const pass = () => runSettlementPass(deps, { reapAfterMs: REAP_AFTER });

async function sum(kind: "credit" | "debit", partyId: string, settledOnly = false) {
  const rows = await h.db
    .select({ amount: ledgerEntries.amount, ref: ledgerEntries.externalRef })
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.partyId, partyId), eq(ledgerEntries.kind, kind)));
  let refs = rows.map((r) => r.ref);
  if (settledOnly && refs.length) {
    const settled = await h.db
      .select({ id: reservations.id })
      .from(reservations)
      .where(and(inArray(reservations.id, refs), eq(reservations.status, "settled")));
    const ids = new Set(settled.map((s) => s.id));
    refs = refs.filter((r) => ids.has(r));
  }
  return rows.filter((r) => refs.includes(r.ref)).reduce((s, r) => s + BigInt(r.amount), 0n);
}

/** DESIGN §6 invariant, Redis against Postgres: balance = credits − settled debits, reserved = Σ open costs. */
async function checkBooks(partyId: string) {
  await drainReservationLog(deps, partyId);
  const { balance, reserved, sum: openInRedis } = await h.checkInvariant(partyId);
  assert.equal(balance, (await sum("credit", partyId)) - (await sum("debit", partyId, true)), "balance");
  assert.equal(reserved, openInRedis, "reserved = Σ cost of open Redis records");
  const open = await h.db
    .select({ cost: reservations.cost })
    .from(reservations)
    .where(
      and(
        eq(reservations.partyId, partyId),
        inArray(reservations.status, ["request_in_flight", "registered", "queued"]),
      ),
    );
  assert.equal(
    reserved,
    open.reduce((s, r) => s + BigInt(r.cost), 0n),
    "reserved = Σ cost of open rows",
  );
  assert.ok(balance >= reserved, "balance − reserved never below zero");
}

async function rows(partyId: string) {
  return h.db.select().from(reservations).where(eq(reservations.partyId, partyId));
}
async function debits(partyId: string) {
  return h.db
    .select()
    .from(ledgerEntries)
    .where(and(eq(ledgerEntries.partyId, partyId), eq(ledgerEntries.kind, "debit")));
}

test("paid requests settle in one pass: one applied debit each, reserved back to 0; failures are not charged", async () => {
  const a = await account("10");
  const paid = 12;
  for (let i = 0; i < paid; i++) assert.equal((await call(a.apiKey)).status, 200);
  for (let i = 0; i < 3; i++) assert.equal((await call(a.apiKey, "/status?code=500")).status, 500);
  assert.equal((await h.account(a.partyId)).reserved, COST * BigInt(paid));

  const result = await pass();
  assert.equal(result.settled, paid);
  const all = await rows(a.partyId);
  assert.equal(all.filter((r) => r.status === "settled").length, paid);
  assert.equal(all.filter((r) => r.status === "failed").length, 3);
  const entries = await debits(a.partyId);
  assert.equal(entries.length, paid);
  assert.deepEqual(
    new Set(entries.map((e) => e.externalRef)),
    new Set(all.filter((r) => r.status === "settled").map((r) => r.id)),
  );
  assert.ok(entries.every((e) => e.appliedAt && e.amount === COST.toString()));
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
  await h.redis.sadd(h.keys.gateway.settleDirty, a.partyId);
  await pass();
  await h.redis.sadd(h.keys.gateway.settleDirty, a.partyId);
  await pass();
  assert.deepEqual(await readBalance(h.redis, h.keys, a.partyId), before);
  assert.equal((await debits(a.partyId)).length, 4);
  assert.ok((await rows(a.partyId)).every((r) => r.status === "settled"));
});

for (const step of ["queued-in-redis", "debited-in-postgres", "settled-in-redis"] as SettlementStep[]) {
  test(`a crash after ${step} is repaired by running the pass again`, async () => {
    const a = await account("10");
    for (let i = 0; i < 3; i++) assert.equal((await call(a.apiKey)).status, 200);
    await h.redis.srem(h.keys.gateway.settleDirty, a.partyId);
    await assert.rejects(
      settlePartyOnce(deps, a.partyId, {
        reapAfterMs: REAP_AFTER,
        afterStep: (at) => {
          if (at === step) throw new Error(`crash after ${at}`);
        },
      }),
      /crash/,
    );
    await h.redis.sadd(h.keys.gateway.settleDirty, a.partyId);
    await pass();
    await h.redis.sadd(h.keys.gateway.settleDirty, a.partyId);
    await pass();
    assert.ok((await rows(a.partyId)).every((r) => r.status === "settled"));
    const entries = await debits(a.partyId);
    assert.equal(entries.length, 3);
    assert.ok(entries.every((e) => e.appliedAt));
    assert.deepEqual(await readBalance(h.redis, h.keys, a.partyId), {
      balance: 10_0000000000n - 3n * COST,
      reserved: 0n,
    });
  });
}

/** A reservation taken by a gateway that then died: reserve.lua at `at`, never finalized. */
async function orphan(partyId: string, at: number) {
  const key = `orphan-${++n}`;
  const id = newId("reservation");
  const g = h.keys.gateway;
  const scope = scopeHash("echo", key);
  const reply = await defineLedgerScripts(h.redis).gwReserve(
    3,
    g.account(partyId),
    g.reservationLog(partyId),
    g.reservation(partyId, scope),
    String(at),
    "172800",
    COST.toString(),
    id,
    key,
    "echo",
    "0.0100000000",
    scope,
  );
  assert.deepEqual(reply[0], ["OK"]);
  await h.redis.sadd(g.settleDirty, partyId);
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
  const entries = await debits(a.partyId);
  assert.equal(entries.length, paid, "one debit per paid request");
  assert.equal(new Set(entries.map((e) => e.externalRef)).size, paid);
  assert.deepEqual(await readBalance(h.redis, h.keys, a.partyId), {
    balance: 1_0000000000n - BigInt(paid) * COST,
    reserved: 0n,
  });
});

test("a 2xx whose body breaks off is registered, then failed: Postgres ends at failed and nothing is debited", async () => {
  const a = await account("10");
  await assert.rejects(call(a.apiKey, "/reset-mid"));
  await new Promise((r) => setTimeout(r, 50));
  const result = await pass();
  assert.equal(result.errors, 0);
  const rowsOf = await rows(a.partyId);
  assert.deepEqual(
    rowsOf.map((r) => r.status),
    ["failed"],
  );
  assert.equal(await sum("debit", a.partyId), 0n);
  assert.deepEqual(await readBalance(h.redis, h.keys, a.partyId), { balance: 10_0000000000n, reserved: 0n });
});

test("the reaper fails an old in-flight reservation and releases its funds; a young one is left alone", async () => {
  const a = await account("10");
  const old = await orphan(a.partyId, Date.now() - REAP_AFTER - 5_000);
  const young = await orphan(a.partyId, Date.now());
  assert.equal((await h.account(a.partyId)).reserved, 2n * COST);
  const result = await pass();
  assert.equal(result.reaped, 1);
  const byId = new Map((await rows(a.partyId)).map((r) => [r.id, r.status]));
  assert.equal(byId.get(old), "failed");
  assert.equal(byId.get(young), "request_in_flight");
  assert.deepEqual(await readBalance(h.redis, h.keys, a.partyId), {
    balance: 10_0000000000n,
    reserved: COST,
  });
  await h.redis.sadd(h.keys.gateway.settleDirty, a.partyId);
  assert.equal((await pass()).reaped, 0, "never reaped twice");
  assert.equal((await h.account(a.partyId)).reserved, COST);
  assert.equal((await debits(a.partyId)).length, 0);
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

  const ctx = { db: h.db, redis: h.redis, keys: h.keys, env: {}, json: true };
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
  const dirty = () => h.redis.sismember(h.keys.gateway.settleDirty, a.partyId);
  await h.redis.srem(h.keys.gateway.settleDirty, a.partyId);
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
    logger: createLogger({ level: "silent", service: "test" }),
  });
  try {
    for (let i = 0; i < 3; i++) assert.equal((await call(a.apiKey)).status, 200);
    const deadline = Date.now() + 3000;
    while ((await h.account(a.partyId)).reserved !== 0n && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 20));
    }
    assert.deepEqual(await readBalance(h.redis, h.keys, a.partyId), {
      balance: 10_0000000000n - 3n * COST,
      reserved: 0n,
    });
  } finally {
    await loop.close();
  }
  assert.equal(loop.isRunning(), false);
});
