/**
 * Benchmark (not part of `npm test`): `npm run bench:beacon-data`.
 * 1. Indexing (a fresh test database): the consensus devnet (Lodestar's state transition, the minimal
 *    preset's 8 slots an epoch, anvil execution node) with VALIDATORS genesis validators, all tracked; the
 *    wall time of one indexer step writing one epoch, over INDEX_EPOCHS epochs, split into its Postgres
 *    calls and the rest (node round trips, the node's rewards endpoints, and computing).
 * 2. Queries (a persistent database, `staking_bench_beacon`, seeded once and reused: BENCH_RESEED=1 seeds it
 *    again): EPOCHS epochs × VALIDATORS validators of reward rows (one day at 225 epochs) with their daily
 *    rollup. The control plane runs as `npm start` runs it (its own process, `control-plane/src/main.ts`,
 *    production settings: info logging to a file, no reply validation); this process drives it over a real
 *    socket with undici, one request at a time, warm-up excluded: p50/p99 of rewards/epoch and rewards/date
 *    for an organisation of 100 validators over a 30-day range (indices 0–99, and once every 100th, whose
 *    rows of an epoch sit on 100 pages instead of 1), and of rewards/overview for one of all
 *    VALIDATORS, beside the table sizes, the server's CPU per request and the machine's load average.
 * BENCH_PART=index|query runs one part; BENCH_PROFILE=<dir> writes a V8 CPU profile of the server there.
 */
import { randomBytes } from "node:crypto";
import { createServer } from "node:net";
import { loadavg, tmpdir } from "node:os";
import { join } from "node:path";
import { performance } from "node:perf_hooks";
import { issueApiKey } from "@stake/db/api-key";
import { createDb } from "@stake/db/client";
import { runMigrations } from "@stake/db/migrate";
import postgres from "postgres";
import { Client } from "undici";
import { createIndexer } from "../../control-plane/src/features/beacon-data/indexer.ts";
import { createAccountsRepo } from "../../control-plane/src/platform/accounts-repo.ts";
import { startProcess, stopAll } from "../../scripts/lib/processes.ts";
import { loadLodestar } from "../beacon-consensus/load.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf } from "../helpers/jobs.ts";
import { adminUrl } from "../helpers/pg.ts";
import { testRedisUrl } from "../helpers/redis.ts";
import { cpuMs, watchNodeRequests } from "./node-requests.ts";

const VALIDATORS = Number(process.env.VALIDATORS ?? 10_000);
const EPOCHS = Number(process.env.EPOCHS ?? 225);
const INDEX_EPOCHS = Number(process.env.INDEX_EPOCHS ?? 3);
const RUNS = Number(process.env.RUNS ?? 200);
const WARMUP = Number(process.env.WARMUP ?? 20);
const PART = process.env.BENCH_PART ?? "all";
const { interopSecretKey, SLOTS_PER_EPOCH } = await loadLodestar();
/** The devnet's validators' pubkeys: the interop keys' (the consensus devnet's genesis validators). */
const pubkeysOf = (n: number) =>
  Array.from(
    { length: n },
    (_, i) => `0x${Buffer.from(interopSecretKey(i).toPublicKey().toBytes()).toString("hex")}`,
  );
/** Mainnet's epoch for the query database's rows; the devnet's chain runs the minimal preset's. */
const S = 32;
const SECONDS_PER_SLOT = 12;
const load = () =>
  `load ${loadavg()
    .map((l) => l.toFixed(2))
    .join(" ")}`;
const ms = (t: number) => `${t.toFixed(0)} ms`;

console.log(`beacon-data bench, ${new Date().toISOString()}, ${load()}`);

// 1. Indexing one epoch of VALIDATORS tracked validators (every proposer is tracked: EL reads per block).
async function benchIndexing() {
  // The consensus devnet (Lodestar's state transition, VALIDATORS genesis validators) in its own process, as
  // a real node would be: its state transition and JSON work are not the indexer's.
  const devnet = await startProcess({
    name: "beacon-devnet",
    entry: "devnet/beacon/main.ts",
    env: {
      ...process.env,
      PORT: "0",
      EXECUTION_PORT: "0",
      SLOT_MS: "0",
      SECONDS_PER_SLOT: String(SECONDS_PER_SLOT),
      VALIDATORS: String(VALIDATORS),
    },
  });
  const executionUrl = (
    (await fetch(`${devnet.url}/devnet/execution`).then((r) => r.json())) as { data: { url: string } }
  ).data.url;
  const h = await createControlPlaneHarness({
    ETH_BEACON_URL: devnet.url,
    ETH_EXECUTION_URL: executionUrl,
    BEACON_INDEXER_START_EPOCH: "0",
    BEACON_INDEXER_MAX_EPOCHS: "1",
    // Why a step wrote nothing (an optimistic node, another chain, a refused answer) is said on stdout.
    LOG_LEVEL: "warn",
  });
  try {
    const org = await makeOrganisation(h.db);
    const pubkeys = pubkeysOf(VALIDATORS);
    await h.sql`insert into beacon_tracked_validators (organisation_id, source, pubkey)
      select ${org.id}, 'registered', unnest(${pubkeys}::text[])`;
    const deps = (await areaOf(h, "beacon-data")).indexerDeps;
    // Each Postgres call of the step timed (they run one after another); the rest of the wall time is the
    // node round trips (concurrent) and computing.
    const pgMs = new Map<string, number>();
    const repo = Object.fromEntries(
      Object.entries(deps.repo).map(([name, fn]) => [
        name,
        async (...args: unknown[]) => {
          const t0 = performance.now();
          try {
            return await (fn as (...a: unknown[]) => Promise<unknown>)(...args);
          } finally {
            pgMs.set(name, (pgMs.get(name) ?? 0) + performance.now() - t0);
          }
        },
      ]),
    ) as typeof deps.repo;
    const indexer = createIndexer({ ...deps, repo });
    // Every node request of the indexer: its wall time to the body's end and its bytes, per kind; beside
    // it the devnet's own time per answer (`GET /devnet/served`) and its CPU.
    const nodes = watchNodeRequests({ beacon: devnet.url, execution: executionUrl });
    let t = performance.now();
    // One epoch past the last one indexed: the indexer takes an epoch once the head block is past its last
    // slot, and that slot is empty when its proposer is one of the devnet's offline validators (the step
    // then wrote nothing, in about one run in eight).
    const advanced = await fetch(`${devnet.url}/devnet/advance?to_epoch=${INDEX_EPOCHS + 1}`, {
      method: "POST",
    });
    if (!advanced.ok) throw new Error(`devnet advance: ${advanced.status} ${await advanced.text()}`);
    console.log(
      `chain: ${VALIDATORS} validators, ${INDEX_EPOCHS + 2} epochs produced in ${((performance.now() - t) / 1000).toFixed(1)} s`,
    );
    const steps: string[] = [];
    const devnetCpu = () => cpuMs(devnet.child.pid as number);
    for (let e = 0; e <= INDEX_EPOCHS; e++) {
      pgMs.clear();
      await nodes.reset();
      const devnetCpu0 = devnetCpu();
      t = performance.now();
      const cpu = process.cpuUsage();
      const written = await indexer.runOnce();
      const used = process.cpuUsage(cpu);
      const wall = performance.now() - t;
      const pg = [...pgMs.values()].reduce((a, b) => a + b, 0);
      const top = [...pgMs.entries()]
        .sort((a, b) => b[1] - a[1])
        .slice(0, 3)
        .map(([k, v]) => `${k} ${ms(v)}`)
        .join(", ");
      const devnetUsed = devnetCpu() - devnetCpu0;
      steps.push(
        `  epoch ${e}: ${ms(wall)} (CPU ${ms((used.user + used.system) / 1000)}; Postgres ${ms(pg)}: ${top}; nodes + computing ${ms(wall - pg)}; devnet CPU ${ms(devnetUsed)}; ${load().slice(0, 9)})`,
        ...(await nodes.lines()).map((l) => `    ${l}`),
      );
      if (written.length !== 1) throw new Error(`step wrote ${written.length} epochs`);
    }
    console.log(
      `indexing one epoch of ${VALIDATORS} validators (${SLOTS_PER_EPOCH} slots, all proposers tracked): wall (indexer CPU; Postgres calls; the rest; the devnet's CPU; load), then per kind of node request: count, bytes, the indexer's wall (summed; requests overlap), the devnet's time to answer:`,
    );
    for (const s of steps) console.log(s);
    console.log("  (epoch 0 has no previous state; the node runs in its own process)");
    nodes.restore();
  } finally {
    await stopAll([devnet]);
    await h.close();
  }
}

// 2. The query database: seeded once (a few minutes), reused by later runs.
// BENCH_DB: another database name, to compare two trees side by side (each seeds its own).
const BENCH_DB = process.env.BENCH_DB ?? "staking_bench_beacon";
const GENESIS = 1_764_000_000; // 2025-11-24T16:00:00Z: one day of epochs spans two UTC days
const EPOCH_SECONDS = S * SECONDS_PER_SLOT;
const SMALL = "bench-beacon-small@bench.invalid";
/** 100 validators spread over the 10,000 (every 100th): each epoch's rows of it sit on 100 pages, not 1. */
const SPREAD = "bench-beacon-spread@bench.invalid";
const LARGE = "bench-beacon-large@bench.invalid";

async function benchDatabase(): Promise<string> {
  const admin = postgres(adminUrl(), { max: 1, onnotice: () => {} });
  const u = new URL(adminUrl());
  u.pathname = `/${BENCH_DB}`;
  try {
    if (process.env.BENCH_RESEED === "1")
      await admin.unsafe(`drop database if exists ${BENCH_DB} with (force)`);
    const [found] = await admin`select 1 from pg_database where datname = ${BENCH_DB}`;
    if (!found) await admin.unsafe(`create database ${BENCH_DB}`);
  } finally {
    await admin.end();
  }
  await runMigrations(u.toString()).catch((err) => {
    throw new Error(
      `${BENCH_DB}: the migrations do not apply (one changed since it was seeded?): run with BENCH_RESEED=1`,
      {
        cause: err,
      },
    );
  });
  return u.toString();
}

async function seed(url: string, sql: postgres.Sql, db: ReturnType<typeof createDb>["db"]) {
  const [have] = await sql<
    { small: number; spread: number; large: number; rewards: number; cursor: number | null }[]
  >`
    select (select count(*) from beacon_tracked_validators r join organisations o on o.id = r.organisation_id where o.email = ${SMALL})::int as small,
           (select count(*) from beacon_tracked_validators r join organisations o on o.id = r.organisation_id where o.email = ${SPREAD})::int as spread,
           (select count(*) from beacon_tracked_validators r join organisations o on o.id = r.organisation_id where o.email = ${LARGE})::int as large,
           (select count(*) from beacon_rewards)::int as rewards,
           (select epoch from beacon_indexer_cursor where id = 'beacon') as cursor`;
  if (
    have?.small === 100 &&
    have.spread === 100 &&
    have.large === VALIDATORS &&
    have.rewards === VALIDATORS * EPOCHS
  ) {
    console.log(`query database ${BENCH_DB}: already seeded (BENCH_RESEED=1 to seed it again)`);
    return;
  }
  if (have && (have.rewards > 0 || have.large > 0)) {
    throw new Error(
      `${BENCH_DB} holds other data than this run's parameters: run with BENCH_RESEED=1 (${url})`,
    );
  }
  const t = performance.now();
  const small = await makeOrganisation(db, { email: SMALL });
  const large = await makeOrganisation(db, { email: LARGE });
  const pubkeys = pubkeysOf(VALIDATORS);
  await sql`insert into beacon_tracked_validators (organisation_id, source, pubkey) select ${large.id}, 'registered', unnest(${pubkeys}::text[])`;
  await sql`insert into beacon_tracked_validators (organisation_id, source, pubkey) select ${small.id}, 'registered', unnest(${pubkeys.slice(0, 100)}::text[])`;
  const spread = await makeOrganisation(db, { email: SPREAD });
  await sql`insert into beacon_tracked_validators (organisation_id, source, pubkey) select ${spread.id}, 'registered', unnest(${pubkeys.filter((_, i) => i % Math.floor(VALIDATORS / 100) === 0).slice(0, 100)}::text[])`;
  await sql`insert into beacon_validators (pubkey, validator_index, beacon_status, lifecycle_status, withdrawal_credentials, balance_gwei, updated_epoch)
    select p, i - 1, 'active_ongoing', 'ACTIVE', '0x01' || repeat('00', 11) || repeat('ab', 20), 32000000000, ${EPOCHS - 1}::int
    from unnest(${pubkeys}::text[]) with ordinality as x(p, i)`;
  // A proposal every 997th validator-epoch: two in three builder blocks (0.04 ETH), one a local block.
  await sql`insert into beacon_rewards (validator_index, epoch, balance_gwei, cl_reward_gwei, el_reward_gwei, mev_reward_gwei, priority_fee_gwei)
    select v, e, 32000000000 + (e * 10000), 9000 + ((v * 7 + e * 13) % 4000), m + f, m, f
    from generate_series(0, ${VALIDATORS - 1}::int) v, generate_series(0, ${EPOCHS - 1}::int) e,
         lateral (select case when (v + e) % 997 = 0 and e % 3 > 0 then 40000000 else 0 end as m,
                         case when (v + e) % 997 = 0 and e % 3 = 0 then 2500000 else 0 end as f) x`;
  await sql`insert into beacon_rewards_daily (validator_index, day, cl_reward_gwei, el_reward_gwei, mev_reward_gwei, priority_fee_gwei, balance_sum_gwei, epochs)
    select validator_index, (to_timestamp((${GENESIS}::bigint + epoch * ${EPOCH_SECONDS}::bigint)::float8) at time zone 'UTC')::date,
           sum(cl_reward_gwei), sum(el_reward_gwei), sum(mev_reward_gwei), sum(priority_fee_gwei), sum(balance_gwei), count(*)
    from beacon_rewards group by 1, 2`;
  await sql`insert into beacon_rewards_org_daily (organisation_id, day, cl_reward_gwei, el_reward_gwei, mev_reward_gwei, priority_fee_gwei, balance_sum_gwei, epochs)
    select r.organisation_id, d.day, sum(d.cl_reward_gwei), sum(d.el_reward_gwei), sum(d.mev_reward_gwei), sum(d.priority_fee_gwei), sum(d.balance_sum_gwei), sum(d.epochs)
    from beacon_tracked_validators r join beacon_validators b on b.pubkey = r.pubkey
    join beacon_rewards_daily d on d.validator_index = b.validator_index group by 1, 2`;
  await sql`insert into beacon_indexer_cursor (id, epoch, finalized_epoch, genesis_time, seconds_per_slot, slots_per_epoch)
    values ('beacon', ${EPOCHS - 1}::int, ${EPOCHS - 2}::int, ${GENESIS}, ${SECONDS_PER_SLOT}, ${S})`;
  await sql`vacuum analyze`;
  console.log(
    `seeded ${BENCH_DB}: ${VALIDATORS * EPOCHS} reward rows (+ daily rollup) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
  );
}

async function freePort(): Promise<number> {
  const srv = createServer();
  await new Promise<void>((r) => srv.listen(0, "127.0.0.1", r));
  const address = srv.address();
  await new Promise((r) => srv.close(r));
  if (!address || typeof address === "string") throw new Error("no port");
  return address.port;
}

async function benchQueries() {
  const url = await benchDatabase();
  const pg = createDb(url, { max: 2, applicationName: "bench" });
  const sql = postgres(url, { max: 1, onnotice: () => {} });
  await seed(url, sql, pg.db);
  // Fresh keys each run (a raw key is shown once and not stored).
  const repo = createAccountsRepo(pg.db);
  const keyOf = async (email: string) => {
    const [org] = await sql<{ id: string }[]>`select id from organisations where email = ${email}`;
    const issued = issueApiKey("staking");
    await repo.insertKey({ organisationId: org!.id, label: "bench", issued });
    return issued.key;
  };
  const smallKey = await keyOf(SMALL);
  const spreadKey = await keyOf(SPREAD);
  const largeKey = await keyOf(LARGE);
  // Exact row counts (the statistics' estimates lag behind a fresh seed).
  const sizes = await sql`select relname, pg_size_pretty(pg_total_relation_size(relid)) as size,
      (xpath('/row/n/text()', query_to_xml(format('select count(*) as n from %I', relname), false, true, '')))[1]::text as rows
    from pg_stat_user_tables where relname like 'beacon_%' order by pg_total_relation_size(relid) desc`;
  for (const s of sizes.filter((s) => s.rows !== "0"))
    console.log(`  ${String(s.relname).padEnd(30)} ${String(s.rows).padStart(10)} rows  ${s.size}`);
  await sql.end();
  await pg.close();

  const port = await freePort();
  const logFile = join(tmpdir(), `bench-beacon-control-plane-${process.pid}.log`);
  const profile = process.env.BENCH_PROFILE;
  const server = await startProcess({
    name: "control-plane",
    entry: "control-plane/src/main.ts",
    nodeFlags: profile ? ["--cpu-prof", `--cpu-prof-dir=${profile}`] : [],
    env: {
      ...process.env,
      DATABASE_URL: url,
      REDIS_URL: testRedisUrl(),
      REDIS_PREFIX: `bench:${randomBytes(4).toString("hex")}:`,
      CONTROL_PLANE_PORT: String(port),
      // One key sends every measured request: the per-key limit (300 a minute) would answer 429.
      API_KEY_REQUESTS_PER_MINUTE: "1000000000",
      // The demo secrets of a local run (refused otherwise, docs/architecture.md §11).
      DEMO_MODE: process.env.DEMO_MODE ?? "1",
    },
    readyUrl: `http://127.0.0.1:${port}`,
    stdoutFile: logFile,
  });
  console.log(`control plane: its own process (pid ${server.child.pid}), logs in ${logFile}`);
  const pid = server.child.pid as number;
  const client = new Client(server.url, { pipelining: 1 });
  try {
    const day = (epoch: number) =>
      new Date((GENESIS + epoch * EPOCH_SECONDS) * 1000).toISOString().slice(0, 10);
    const last = EPOCHS - 1;
    const thirtyDays = Math.ceil((30 * 86_400) / EPOCH_SECONDS);
    const once = async (key: string, path: string) => {
      const res = await client.request({ method: "GET", path, headers: { "api-key": key } });
      const body = await res.body.text();
      if (res.statusCode !== 200) throw new Error(`${path}: ${res.statusCode} ${body}`);
      return body.length;
    };
    const measure = async (name: string, key: string, path: string, query: Record<string, unknown>) => {
      const full = `${path}?${new URLSearchParams(Object.entries(query).map(([k, v]): [string, string] => [k, String(v)]))}`;
      let bytes = 0;
      for (let i = 0; i < WARMUP; i++) bytes = await once(key, full);
      const times: number[] = [];
      const cpu0 = cpuMs(pid);
      for (let i = 0; i < RUNS; i++) {
        const s = performance.now();
        await once(key, full);
        times.push(performance.now() - s);
      }
      const cpu = (cpuMs(pid) - cpu0) / RUNS;
      times.sort((a, b) => a - b);
      const p = (q: number) =>
        (times[Math.min(times.length - 1, Math.floor(q * times.length))] as number).toFixed(1);
      console.log(
        `${name.padEnd(58)} p50 ${p(0.5)} ms  p99 ${p(0.99)} ms  server CPU ${cpu.toFixed(1)} ms/req  ${(bytes / 1024).toFixed(0)} KiB  (${RUNS} requests, ${load()})`,
      );
    };
    for (const perPage of [10, 100]) {
      await measure(
        `rewards/epoch, 100 validators, 30-day range, per_page ${perPage}`,
        smallKey,
        "/api/rewards/epoch",
        { start_epoch: Math.max(0, last - thirtyDays + 1), end_epoch: last, per_page: perPage },
      );
    }
    await measure(
      "rewards/epoch, 100 spread validators, 30-day range, per_page 10",
      spreadKey,
      "/api/rewards/epoch",
      { start_epoch: Math.max(0, last - thirtyDays + 1), end_epoch: last, per_page: 10 },
    );
    await measure("rewards/date, 100 validators, 30 days, interval 1d", smallKey, "/api/rewards/date", {
      start_date: day(last - thirtyDays + 1),
      end_date: day(last),
      interval: "1d",
      per_page: 30,
    });
    await measure(`rewards/overview, ${VALIDATORS} validators`, largeKey, "/api/rewards/overview", {});
  } finally {
    await client.close();
    await stopAll([server]);
  }
}

if (PART !== "query") await benchIndexing();
if (PART !== "index") await benchQueries();
console.log(`done, ${load()}`);
