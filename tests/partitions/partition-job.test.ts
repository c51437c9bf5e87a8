import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { auditBreaks } from "../../control-plane/src/features/gateway-settlement/repo.ts";
import { PartitionsConfig } from "../../control-plane/src/features/partitions/config.ts";
import { createPartitionMaintenance } from "../../control-plane/src/features/partitions/maintain.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";
import { eventually } from "../helpers/eventually.ts";
import { startJobs } from "../helpers/jobs.ts";
import { createTestDatabase, type TestDatabase } from "../helpers/pg.ts";

// "Partitioned history": the job creates partitions ahead and detaches those past retention;
// the reads of what stays give the same answers. Migration 0018 (run on the test template, in the month
// the template was made) created this month and the next for reservations and ledger_entries.
let db: TestDatabase;
const logger = createLogger({ level: "silent", service: "test" });
const maintenance = (env: Record<string, string>) =>
  createPartitionMaintenance({ db: db.db, config: PartitionsConfig.parse(env), logger });

before(async () => {
  db = await createTestDatabase();
});
after(async () => {
  await db.drop();
});

const monthOf = (d: Date) => d.toISOString().slice(0, 7).replace("-", "_");
const addMonths = (d: Date, n: number) => new Date(Date.UTC(d.getUTCFullYear(), d.getUTCMonth() + n, 15));

async function partitions(table: string) {
  const rows = await db.sql<{ name: string }[]>`
    select c.relname as name from pg_inherits i join pg_class c on c.oid = i.inhrelid
    where i.inhparent = ${`public.${table}`}::regclass`;
  return rows.map((r) => r.name).sort();
}

async function archived() {
  const rows = await db.sql<{ name: string }[]>`
    select table_name as name from information_schema.tables where table_schema = 'archive' order by 1`;
  return rows.map((r) => r.name);
}

test("reservations and the ledger: months created ahead, months past retention archived (not one holding an open reservation), the rest and the books unchanged", async () => {
  // Month 0 is the first one the migration made (the template's month, whenever it was migrated).
  const [first] = (await partitions("reservations")).filter((n) => /_\d{4}_\d{2}$/.test(n));
  const [year, mon] = (first ?? "").split("_").slice(-2).map(Number);
  const start = new Date(Date.UTC(year as number, (mon as number) - 1, 15));
  const month = (n: number) => addMonths(start, n);
  await db.sql`insert into gateway_users (id, email, password_hash) values ('usr_p', 'p@example.com', 'x')`;
  await db.sql`insert into parties (id, user_id) values ('pty_p', 'usr_p')`;
  // Months 0..6 from this one: each has two settled paid reservations charged by one debit of that month;
  // month 2 also holds a registered (open) one. Months 2.. arrive before their range exists: the default
  // partition holds them until the job makes their month.
  await db.sql`insert into ledger_entries (id, party_id, kind, amount, external_ref, created_at, applied_at)
    values ('led_credit', 'pty_p', 'credit', 1000000, 'wire-1', ${month(0).toISOString()}, now())`;
  for (let m = 0; m <= 6; m++) {
    const at = month(m);
    await db.sql`insert into ledger_entries (id, party_id, kind, amount, external_ref, created_at, applied_at)
      values (${`led_d${m}`}, 'pty_p', 'debit', ${300 + m}, ${`led_d${m}`}, ${at.toISOString()}, now())`;
    for (const [i, cost, status] of [
      [1, 100, "settled"],
      [2, 200 + m, "settled"],
      ...(m === 2 ? [[3, 50, "registered"] as const] : []),
    ] as const)
      await db.sql`insert into reservations (id, party_id, provider_key, idempotency_key, cost_in_usd, cost, status,
          debit_id, created_at, updated_at)
        values (${`rsv_${m}_${i}`}, 'pty_p', 'echo', ${`k${m}${i}`}, 0.01, ${cost}, ${status},
          ${status === "settled" ? `led_d${m}` : null}, ${new Date(at.getTime() + i * 1000).toISOString()}, ${at.toISOString()})`;
  }
  const balance = () =>
    db.sql`select sum(case when kind = 'credit' then amount else -amount end)::text as b from ledger_entries`;
  const retained = () =>
    db.sql`select id, cost::text, status, debit_id, created_at from reservations where created_at >= ${month(3).toISOString()}
      order by created_at, id`;
  const [balanceBefore, retainedBefore] = [await balance(), await retained()];
  assert.deepEqual(await auditBreaks(db.db, "pty_p"), {
    debits: [],
    unlistedSettled: 0,
    unappliedCredits: 0,
  });

  // Six months on, keeping 3 whole months before the current one: months 0..2 are past retention.
  const now = month(6).getTime();
  const pass = await maintenance({ PARTITIONS_AHEAD: "2", RESERVATIONS_RETENTION_MONTHS: "3" }).runOnce(now);
  const names = (table: string, from: number, to: number) =>
    Array.from({ length: to - from + 1 }, (_, i) => `${table}_${monthOf(month(from + i))}`);
  assert.deepEqual(pass.created, [...names("reservations", 2, 8), ...names("ledger_entries", 2, 8)]);
  assert.deepEqual(pass.detached, names("reservations", 0, 1));
  assert.deepEqual(pass.kept, names("reservations", 2, 2), "month 2 holds an open reservation");
  assert.deepEqual(await partitions("reservations"), [
    ...names("reservations", 2, 8),
    "reservations_default",
  ]);
  assert.deepEqual(await partitions("ledger_entries"), [
    ...names("ledger_entries", 0, 8),
    "ledger_entries_default",
  ]);
  assert.deepEqual(await archived(), names("reservations", 0, 1));
  const [strays] = await db.sql`select
    (select count(*) from reservations_default)::int as r, (select count(*) from ledger_entries_default)::int as l`;
  assert.deepEqual({ ...strays }, { r: 0, l: 0 }, "the strays moved into their months");

  assert.deepEqual(await balance(), balanceBefore, "the ledger is never detached: the balance is unchanged");
  assert.deepEqual(await retained(), retainedBefore, "the retained months read the same");
  const [gone] =
    await db.sql`select count(*)::int as n from reservations where created_at < ${month(2).toISOString()}`;
  assert.equal(gone?.n, 0, "archived months are out of every read of reservations");
  assert.deepEqual(
    await auditBreaks(db.db, "pty_p"),
    { debits: [], unlistedSettled: 0, unappliedCredits: 0 },
    "each archived debit still adds up (archived_debit_listings)",
  );

  // Once the open reservation is closed, its month goes; a second pass changes nothing else.
  await db.sql`update reservations set status = 'settled', debit_id = 'led_d2x' where id = 'rsv_2_3'`;
  await db.sql`insert into ledger_entries (id, party_id, kind, amount, external_ref, created_at, applied_at)
    values ('led_d2x', 'pty_p', 'debit', 50, 'led_d2x', ${month(6).toISOString()}, now())`;
  const again = await maintenance({ PARTITIONS_AHEAD: "2", RESERVATIONS_RETENTION_MONTHS: "3" }).runOnce(now);
  assert.deepEqual(again, { created: [], detached: names("reservations", 2, 2), kept: [] });
  assert.deepEqual(await auditBreaks(db.db, "pty_p"), {
    debits: [],
    unlistedSettled: 0,
    unappliedCredits: 0,
  });
});

test("beacon_rewards: epoch ranges from the index's first epoch to two past the cursor, finalized ranges past retention dropped, the epochs kept read the same", async () => {
  // 12-second slots, 32 per epoch: 225 epochs a day. Cursor at 5000, finalized 4990; rows every 25 epochs.
  await db.sql`insert into beacon_indexer_cursor (id, epoch, first_epoch, finalized_epoch, genesis_time,
      seconds_per_slot, slots_per_epoch) values ('beacon', 5000, 0, 4990, 0, 12, 32)`;
  await db.sql`insert into beacon_rewards (validator_index, epoch, balance_gwei, cl_reward_gwei, el_reward_gwei)
    select v, e, 32000000000, 10 * v + e, e % 7 from generate_series(1, 3) v, generate_series(0, 5000, 25) e`;
  const sums = (from: number) =>
    db.sql`select epoch, sum(cl_reward_gwei)::text as cl, sum(el_reward_gwei)::text as el from beacon_rewards
      where epoch >= ${from} and validator_index = any(${[1, 2, 3]}) group by epoch order by epoch`;
  const keptBefore = await sums(1575);

  // 10 days = 2250 epochs: ranges ending at or below min(4990, 5000 − 2250) = 2750 go.
  const pass = await maintenance({
    BEACON_REWARDS_RETENTION_DAYS: "10",
    DETACHED_PARTITIONS: "drop",
  }).runOnce();
  const range = (from: number) => `beacon_rewards_e${String(from).padStart(10, "0")}`;
  assert.deepEqual(
    pass.created.filter((n) => n.startsWith("beacon")),
    [0, 1575, 3150, 4725, 6300, 7875].map(range),
  );
  assert.deepEqual(pass.detached, [range(0)]);
  assert.deepEqual(await partitions("beacon_rewards"), [
    "beacon_rewards_default",
    ...[1575, 3150, 4725, 6300, 7875].map(range),
  ]);
  assert.ok(!(await archived()).includes(range(0)), "dropped, not archived");
  assert.deepEqual(await sums(1575), keptBefore, "the kept epochs read the same");
  const [below] = await db.sql`select count(*)::int as n from beacon_rewards where epoch < 1575`;
  assert.equal(below?.n, 0);
});

test("the partition job runs as a repeating worker job and keeps PARTITIONS_AHEAD months ready", async (t) => {
  const h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "partitions",
    PARTITIONS_AHEAD: "3",
    PARTITION_JOB_INTERVAL_MS: "1000",
  });
  t.after(() => h.close());
  const jobs = await startJobs(h, ["partitions"]);
  t.after(() => jobs.close());
  const last = `reservations_${monthOf(addMonths(new Date(), 3))}`;
  await eventually(async () => (await h.sql`select 1 from pg_class where relname = ${last}`).length === 1, {
    what: `the job to create ${last}`,
  });
});
