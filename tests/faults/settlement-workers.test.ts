import assert from "node:assert/strict";
import { test } from "node:test";
import { sql } from "drizzle-orm";
import { readBalance } from "../../control-plane/src/features/gateway-settlement/funding.ts";
import { pgArray } from "../../control-plane/src/features/gateway-settlement/repo.ts";
import type { Started } from "../../scripts/lib/processes.ts";
import { eventually } from "../helpers/eventually.ts";
import { servedReservations } from "../helpers/reservations.ts";
import { COST, kill, PREFIX, type Stack, startStack } from "./stack.ts";

// docs/gateway.md, "Several settlement workers", with real processes and real signals.

const PARTIES = 50;
const PER_PARTY = 1_000;
const TOTAL = PARTIES * PER_PARTY;
const FUNDED_COINS = "100";
const FUNDED = 100_0000000000n;

/** The parties whose settlement lease a worker of `pids` holds (tokens are `host:pid:random`), by holder. */
async function leasesHeld(s: Stack, pids: number[]): Promise<{ pid: number; partyId: string }[]> {
  const held: { pid: number; partyId: string }[] = [];
  let cursor = "0";
  do {
    const [next, keys] = await s.redis.scan(cursor, "MATCH", `${PREFIX}gw:{*}:lease`, "COUNT", 1000);
    cursor = next;
    const tokens = keys.length ? await s.redis.mget(...keys) : [];
    keys.forEach((key, i) => {
      const pid = pids.find((p) => tokens[i]?.includes(`:${p}:`));
      if (pid !== undefined) held.push({ pid, partyId: /\{(.+)\}/.exec(key)?.[1] as string });
    });
  } while (cursor !== "0");
  return held;
}

/**
 * Freezes the workers (SIGSTOP) at a moment one of them holds the lease of a party still dirty (not yet
 * through its settlement), so the SIGKILL that follows lands in the middle of that party's settlement, and
 * lets the others go; workers frozen elsewhere are let go and tried again. Any of them may be the one: on
 * a busy machine one worker can go a whole pass without a party, while the others settle them all.
 * Returns that worker and its party.
 */
async function freezeMidParty(s: Stack, workers: Started[]): Promise<{ victim: Started; partyId: string }> {
  const pids = workers.map((w) => w.child.pid as number);
  const found = await eventually(
    async () => {
      for (const pid of pids) process.kill(pid, "SIGSTOP");
      let mid: { pid: number; partyId: string } | undefined;
      for (const held of await leasesHeld(s, pids))
        if (await s.redis.sismember(s.keys.gateway.settleDirty(held.partyId), held.partyId)) {
          mid = held;
          break;
        }
      for (const pid of pids) if (pid !== mid?.pid) process.kill(pid, "SIGCONT");
      return mid;
    },
    { what: "a worker frozen in the middle of a party's settlement" },
  );
  return { victim: workers[pids.indexOf(found.pid)] as Started, partyId: found.partyId };
}

async function settledOf(s: Stack, ids: string[]): Promise<number> {
  const [row] = await s.db.execute<{ n: string }>(
    sql`select count(*)::text as n from reservations where id = any(${pgArray(ids)}::text[]) and status = 'settled'`,
  );
  return Number(row?.n);
}

test(`3 settlement workers, one SIGKILLed mid-pass, settle ${TOTAL} reservations each exactly once: books exact, ledger check clean`, async (t) => {
  const s = await startStack();
  t.after(() => s.close());
  const started = Date.now();
  await s.seedProvider();
  const partyIds = (
    await Promise.all(Array.from({ length: PARTIES }, () => s.operator.openAccount({ coins: FUNDED_COINS })))
  ).map((a) => a.partyId as string);
  const ids = await servedReservations(s, {
    partyIds,
    perParty: PER_PARTY,
    cost: COST,
    costInUsd: "0.01",
    ttlSeconds: 172_800,
  });
  assert.equal(new Set(ids).size, TOTAL);
  const generated = Date.now();

  const env = {
    CONTROL_PLANE_AREAS: "gateway-settlement",
    SETTLEMENT_INTERVAL_MS: "50",
    // Long enough that the kill below lands inside the frozen worker's lease even on a busy machine.
    SETTLEMENT_LEASE_MS: "6000",
  };
  const workers = await Promise.all([s.worker(env), s.worker(env), s.worker(env)]);
  // Mid-pass: a tenth settled, most still to come.
  await eventually(async () => (await settledOf(s, ids)) >= TOTAL / 10, {
    what: "settlement under way",
    intervalMs: 100,
  });
  const { victim, partyId: orphaned } = await freezeMidParty(s, workers);
  const lease = s.keys.gateway.settleLease(orphaned);
  const frozenAt = Date.now();
  const [token, leftMs] = await Promise.all([s.redis.get(lease), s.redis.pttl(lease)]);
  await kill(victim);
  // The victim was frozen when the lease was read, so nothing renewed it since: it holds the dead worker's
  // token until its time runs out (on a busy machine the kill itself can take longer than what was left).
  const holder = await s.redis.get(lease);
  const elapsedMs = Date.now() - frozenAt;
  if (elapsedMs < leftMs) assert.equal(holder, token, "the dead worker's lease outlives it until it expires");
  else t.diagnostic(`the kill took ${elapsedMs} ms, past the lease's ${leftMs} ms: its expiry not observed`);
  const settledAtKill = await settledOf(s, ids);
  assert.ok(settledAtKill < TOTAL, `killed mid-pass: ${settledAtKill} of ${TOTAL} settled`);

  await eventually(async () => (await settledOf(s, ids)) === TOTAL, {
    what: `all ${TOTAL} reservations settled by the two workers left`,
    intervalMs: 200,
  });
  const settled = Date.now();
  // It was dirty when its worker died, and only a worker that settles it through takes it off the set.
  await eventually(
    async () => (await s.redis.sismember(s.keys.gateway.settleDirty(orphaned), orphaned)) === 0,
    {
      what: "the orphaned party taken over and settled through",
    },
  );

  // Exactly once: each lists one debit, each debit is the sum of its reservations, the usage roll-up counted
  // each move to settled once, and each party's hot balance lost exactly its requests' cost.
  const [books] = await s.db.execute<{
    listed: string;
    debits: string;
    charged: string;
    counted: string;
  }>(sql`
    select
      (select count(*) from reservations where id = any(${pgArray(ids)}::text[]) and debit_id is not null)::text as listed,
      (select coalesce(sum(amount), 0) from ledger_entries where kind = 'debit')::text as debits,
      (select coalesce(sum(cost), 0) from reservations where status = 'settled')::text as charged,
      (select coalesce(sum(settled), 0) from gateway_usage_daily)::text as counted`);
  assert.deepEqual(books, {
    listed: String(TOTAL),
    debits: String(BigInt(TOTAL) * COST),
    charged: String(BigInt(TOTAL) * COST),
    counted: String(TOTAL),
  });
  for (const partyId of partyIds)
    assert.deepEqual(await readBalance(s.redis, s.keys, partyId), {
      balance: FUNDED - BigInt(PER_PARTY) * COST,
      reserved: 0n,
    });
  const check = await s.ledgerCheck();
  assert.equal(check.code, 0, check.output);
  t.diagnostic(
    `accounts and ${TOTAL} reservations in ${generated - started} ms; 3 workers started and settled all (one killed at ${settledAtKill}) in ${settled - generated} ms`,
  );
});
