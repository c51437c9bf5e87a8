import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { runLease } from "@stake/db/redis/scripts";
import { dirtyCount } from "@stake/db/redis/settle-dirty";
import { checkParty } from "../../control-plane/src/features/gateway-settlement/check.ts";
import { readBalance } from "../../control-plane/src/features/gateway-settlement/funding.ts";
import { acquireLease } from "../../control-plane/src/features/gateway-settlement/lease.ts";
import { runSettlementPass } from "../../control-plane/src/features/gateway-settlement/pass.ts";
import type {
  SettlementDeps,
  SettlementOptions,
} from "../../control-plane/src/features/gateway-settlement/types.ts";
import { eventually } from "../helpers/eventually.ts";
import { createGatewayHarness, type GatewayHarness } from "../helpers/gateway.ts";
import { servedReservations } from "../helpers/reservations.ts";
import { settlementBooks } from "./settlement-books.ts";

// docs/gateway.md, "Several settlement workers": one lease per party, and books exact whatever the timing.
let h: GatewayHarness;
let deps: SettlementDeps;
let books: ReturnType<typeof settlementBooks>;
const COST = 200_000_000n;
const FUNDED = 10_0000000000n;
const OPTIONS: SettlementOptions = { reapAfterMs: 60_000, ttlSeconds: 172_800 };

before(async () => {
  h = await createGatewayHarness();
  deps = { db: h.db, redis: h.redis, keys: h.keys };
  books = settlementBooks(h, deps);
});
after(() => h.close());

async function partiesWithServed(count: number, perParty: number) {
  const partyIds: string[] = [];
  for (let i = 0; i < count; i++) partyIds.push((await h.createAccount({ coins: "10" })).partyId as string);
  await servedReservations(h, { partyIds, perParty, cost: COST, costInUsd: "0.01", ttlSeconds: 172_800 });
  return partyIds;
}

/** Each served request charged once in Redis and in the ledger, and `ledger check` clean. */
async function assertChargedOnce(partyId: string, served: number) {
  assert.deepEqual(await readBalance(h.redis, h.keys, partyId), {
    balance: FUNDED - BigInt(served) * COST,
    reserved: 0n,
  });
  assert.equal((await books.audit(partyId)).length, served, "each reservation lists one debit");
  assert.equal((await books.sum("debit", partyId)) / COST, BigInt(served), "debits = Σ served");
  await books.checkBooks(partyId);
  assert.deepEqual(await checkParty(deps, partyId), [], "ledger check clean");
}

test("a party's lease has one holder; only its token renews or releases it; unrenewed, it expires", async () => {
  const partyId = "party_lease_unit";
  const first = await acquireLease(h, partyId, 300);
  assert.ok(first);
  assert.equal(await acquireLease(h, partyId, 300), undefined, "held: no second holder");
  const impostor = { partyId, token: `${first.token}x` };
  assert.equal(await runLease(h.redis, h.keys, { ...impostor, op: "renew", ttlMs: 60_000 }), false);
  assert.equal(await runLease(h.redis, h.keys, { ...impostor, op: "release" }), false);
  assert.equal(await first.renew(), true);
  assert.equal(await h.redis.get(h.keys.gateway.settleLease(partyId)), first.token);
  assert.match(first.token, new RegExp(`:${process.pid}:`), "the token names its process");
  await eventually(async () => (await h.redis.exists(h.keys.gateway.settleLease(partyId))) === 0, {
    what: "the unrenewed lease to expire",
  });
  const second = await acquireLease(h, partyId, 15_000);
  assert.ok(second, "expired: another worker takes it");
  assert.equal(await first.renew(), false, "the expired holder cannot extend the new one");
  assert.equal(await first.release(), false, "nor drop it");
  assert.equal(await h.redis.get(h.keys.gateway.settleLease(partyId)), second.token);
  assert.equal(await second.release(), true);
  assert.equal(await h.redis.exists(h.keys.gateway.settleLease(partyId)), 0);
});

test("two passes side by side settle each party once, each under its lease, and leave the dirty set empty", async () => {
  const partyIds = await partiesWithServed(6, 40);
  const [a, b] = await Promise.all([runSettlementPass(deps, OPTIONS), runSettlementPass(deps, OPTIONS)]);
  assert.equal(a.errors + b.errors, 0);
  assert.equal(a.settled + b.settled, 6 * 40, "every reservation settled by exactly one pass");
  assert.equal(a.parties + b.parties, 6, JSON.stringify({ a, b }));
  assert.equal(await dirtyCount(h.redis, h.keys), 0);
  for (const partyId of partyIds) await assertChargedOnce(partyId, 40);
});

test("a worker stalled past its lease commits after another took the party over, and charges nothing twice", async () => {
  const [partyId] = (await partiesWithServed(1, 30)) as [string];
  let stalled!: () => void;
  const resume = new Promise<void>((r) => {
    stalled = r;
  });
  let paused = false;
  // The stall comes after the fence's check, between settle.lua and the Postgres commit: the worst moment.
  const slow = runSettlementPass(deps, {
    ...OPTIONS,
    leaseMs: 1_000,
    async afterStep(step) {
      if (step !== "settled-in-redis" || paused) return;
      paused = true;
      await resume;
    },
  });
  await eventually(() => paused, { what: "the first worker to settle in Redis and stall" });
  await eventually(async () => (await h.redis.exists(h.keys.gateway.settleLease(partyId))) === 0, {
    what: "its lease to expire",
  });
  const takeover = await runSettlementPass(deps, OPTIONS);
  assert.equal(takeover.parties, 1, "the party was still dirty: taken over");
  assert.equal(takeover.settled, 30, "settle.lua answers ALREADY for what the stalled worker settled");
  stalled();
  const late = await slow;
  assert.equal(late.errors, 0);
  assert.equal(late.busy, 1, "the stalled worker found its lease lost after its late commit");
  assert.equal(late.parties, 0);
  await assertChargedOnce(partyId, 30);
  assert.equal((await books.debits(partyId)).length, 1, "the late commit moved no row: no second debit");
});
