import assert from "node:assert/strict";
import { cpSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { MIGRATIONS_FOLDER, runMigrations } from "@stake/db/migrate";
import { createBeaconDataRepo } from "../../control-plane/src/features/beacon-data/repo.ts";
import { insertCredit } from "../../control-plane/src/features/gateway-settlement/ledger-repo.ts";
import {
  auditBreaks,
  type ReservationRow,
  upsertReservations,
} from "../../control-plane/src/features/gateway-settlement/repo.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/pg.ts";

// Migration 0018 rebuilds beacon_rewards, reservations and ledger_entries as partitioned tables.
// From the unpartitioned schema (0017) with data: every row is there after, in its range (none left to
// the default partition), and the reads give the same answers.
const DATA = path.resolve(import.meta.dirname, "../../.data");
let db: TestDatabase;
let upTo0017: string;

before(async () => {
  db = await createTestDatabase({ empty: true });
  mkdirSync(DATA, { recursive: true });
  upTo0017 = mkdtempSync(path.join(DATA, "migrations-0017-"));
  const journal = JSON.parse(readFileSync(path.join(MIGRATIONS_FOLDER, "meta/_journal.json"), "utf8"));
  journal.entries = journal.entries.filter((e: { idx: number }) => e.idx <= 17);
  mkdirSync(path.join(upTo0017, "meta"));
  writeFileSync(path.join(upTo0017, "meta/_journal.json"), JSON.stringify(journal));
  for (const e of journal.entries as { tag: string }[])
    cpSync(path.join(MIGRATIONS_FOLDER, `${e.tag}.sql`), path.join(upTo0017, `${e.tag}.sql`));
});
after(async () => {
  await db.drop();
  rmSync(upTo0017, { recursive: true, force: true });
});

const COLUMNS = {
  beacon_rewards:
    "validator_index, epoch, balance_gwei, cl_reward_gwei, el_reward_gwei, mev_reward_gwei, priority_fee_gwei",
  reservations:
    "id, party_id, provider_key, idempotency_key, cost_in_usd, cost, status, created_at, updated_at, debit_id, key_id, http_status, upstream_ms",
  ledger_entries: "id, party_id, kind, amount, external_ref, created_at, applied_at",
};

/** Every row of each table, as one digest per table, plus the counts. */
async function contents() {
  const out: Record<string, unknown> = {};
  for (const [table, columns] of Object.entries(COLUMNS)) {
    const [row] = await db.sql.unsafe(
      `select count(*)::int as n, md5(string_agg(t::text, '|' order by t::text)) as digest
       from (select ${columns} from ${table}) t`,
    );
    out[table] = { ...row };
  }
  return out;
}

/**
 * Reads the services make. Today's reads name columns later migrations added, so they run after the
 * migration, against a database migrated from nothing with the same rows (`neverOld`): a migrated database
 * must answer as one that never had the old schema.
 */
async function answers(db: TestDatabase) {
  const repo = createBeaconDataRepo(db.db);
  return {
    epochs: [...(await repo.epochRewards([1, 2, 3], 1500, 3200))],
    totals: await repo.totals([1, 2, 4], {
      epochs: [
        [0, 1574],
        [1575, 4000],
      ],
    }),
    balances: [
      ...(await db.sql`select party_id, sum(case when kind = 'credit' then amount else -amount end)::text as b
        from ledger_entries group by 1 order by 1`),
    ],
    recent: [
      ...(await db.sql`select id, status, cost::text from reservations where party_id = 'pty_1'
        order by created_at desc limit 7`),
    ],
    open: [
      ...(await db.sql`select id from reservations
        where party_id = 'pty_2' and status in ('request_in_flight', 'registered', 'queued') order by id`),
    ],
  };
}

const now = new Date();
/** Day `s` (0-based) of the month `n` months ago, at noon UTC. */
const monthsAgo = (n: number, s: number) =>
  new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - n, 1 + s, 12)).toISOString();

/** The same rows on either schema: rewards over three of today's ranges, six months of money. */
async function seed(db: TestDatabase) {
  await db.sql`insert into gateway_users (id, email, password_hash)
    values ('usr_1', 'one@example.com', 'x'), ('usr_2', 'two@example.com', 'x')`;
  await db.sql`insert into parties (id, user_id) values ('pty_1', 'usr_1'), ('pty_2', 'usr_2')`;
  await db.sql`insert into beacon_rewards (validator_index, epoch, balance_gwei, cl_reward_gwei, el_reward_gwei,
      mev_reward_gwei, priority_fee_gwei)
    select v, e, 32000000000 + e, 11 * v + e, e % 5 + e % 3, e % 5, e % 3
    from generate_series(1, 4) v, generate_series(0, 4000, 10) e`;
  for (const party of ["pty_1", "pty_2"]) {
    await db.sql`insert into ledger_entries (id, party_id, kind, amount, external_ref, created_at, applied_at)
      values (${`led_c_${party}`}, ${party}, 'credit', 10000000, ${`wire-${party}`}, ${monthsAgo(5, 0)}, now())`;
    for (let m = 5; m >= 0; m--) {
      const debit = `led_d_${party}_${m}`;
      await db.sql`insert into ledger_entries (id, party_id, kind, amount, external_ref, created_at, applied_at)
        values (${debit}, ${party}, 'debit', ${3 * 1000 + m}, ${debit}, ${monthsAgo(m, 20)}, now())`;
      for (let i = 0; i < 4; i++)
        await db.sql`insert into reservations (id, party_id, provider_key, idempotency_key, cost_in_usd, cost, status,
            debit_id, key_id, http_status, upstream_ms, created_at, updated_at)
          values (${`rsv_${party}_${m}_${i}`}, ${party}, 'echo', ${`k${m}${i}`}, 0.01,
            ${i < 3 ? 1000 + (i === 2 ? m : 0) : 7}, ${i < 3 ? "settled" : m === 0 ? "registered" : "failed"},
            ${i < 3 ? debit : null}, 'key_a', 200, ${10 * i}, ${monthsAgo(m, i)}, ${monthsAgo(m, 20)})`;
    }
  }
}

test("0017 → 0018 with data: every row kept and placed in its range, the same answers, upserts and credit refs as before", async () => {
  await runMigrations(db.url, upTo0017);
  await seed(db);
  const rowsBefore = await contents();
  const neverOld = await createTestDatabase();
  let answersBefore: Awaited<ReturnType<typeof answers>>;
  try {
    await seed(neverOld);
    answersBefore = await answers(neverOld);
  } finally {
    await neverOld.drop();
  }

  await runMigrations(db.url);

  assert.deepEqual(await contents(), rowsBefore, "every row of the three tables is there, unchanged");
  assert.deepEqual(
    await answers(db),
    answersBefore,
    "the reads give the answers of a database that never had the old schema",
  );
  const placed = await db.sql`
    select tableoid::regclass::text as part, count(*)::int as n from reservations group by 1
    union all select tableoid::regclass::text, count(*)::int from ledger_entries group by 1
    union all select tableoid::regclass::text, count(*)::int from beacon_rewards group by 1 order by 1`;
  const parts = placed.map((r) => r.part as string);
  assert.ok(!parts.some((p) => p.endsWith("_default")), `no row left to a default partition: ${parts}`);
  for (let m = 5; m >= 0; m--)
    assert.ok(parts.includes(`reservations_${monthsAgo(m, 0).slice(0, 7).replace("-", "_")}`), `month -${m}`);
  assert.ok(
    ["beacon_rewards_e0000000000", "beacon_rewards_e0000001575", "beacon_rewards_e0000003150"].every((p) =>
      parts.includes(p),
    ),
  );
  for (const party of ["pty_1", "pty_2"])
    assert.deepEqual(await auditBreaks(db.db, party), {
      debits: [],
      unlistedSettled: 0,
      unappliedCredits: 0,
    });

  // A retried funding finds its credit (the ref moved into ledger_credit_refs); a new ref adds one.
  const again = await insertCredit(db.db, { partyId: "pty_1", amount: 10000000n, ref: "wire-pty_1" });
  assert.equal(again?.id, "led_c_pty_1");
  const fresh = await insertCredit(db.db, { partyId: "pty_1", amount: 5n, ref: "wire-2" });
  assert.equal((await insertCredit(db.db, { partyId: "pty_1", amount: 5n, ref: "wire-2" }))?.id, fresh?.id);
  const [credits] = await db.sql`select count(*)::int as n from ledger_entries where kind = 'credit'`;
  assert.equal(credits?.n, 3);

  // Settlement's upsert by (id, created_at) moves the open reservation in place, adding no row.
  const [open] = await db.sql`select * from reservations where id = 'rsv_pty_2_0_3'`;
  const row: ReservationRow = {
    id: "rsv_pty_2_0_3",
    partyId: "pty_2",
    providerKey: "echo",
    idempotencyKey: "k03",
    costInUsd: "0.01",
    cost: "7",
    status: "failed",
    debitId: null,
    keyId: "key_a",
    httpStatus: 502,
    upstreamMs: null,
    path: null,
    createdAt: new Date(open?.created_at),
    updatedAt: new Date(),
  };
  await upsertReservations(db.db, "pty_2", [row]);
  const rows = await db.sql`select status from reservations where id = 'rsv_pty_2_0_3'`;
  assert.deepEqual(
    rows.map((r) => r.status),
    ["failed"],
  );
});
