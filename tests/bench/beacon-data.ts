/**
 * Benchmark (not part of `npm test`): `npm run bench:beacon-data`.
 * 1. Indexing: the beacon devnet with VALIDATORS validators (anvil execution node, 32 slots an epoch), all
 *    tracked; the wall time of one indexer step writing one epoch, over INDEX_EPOCHS epochs.
 * 2. Queries: EPOCHS epochs × VALIDATORS validators of reward rows (one day at 225 epochs) stored with their
 *    daily rollup; p50/p99 of rewards/epoch and rewards/date for an organisation of 100 validators over a
 *    30-day range, and of rewards/overview for an organisation of all VALIDATORS, beside the table sizes.
 */
import { performance } from "node:perf_hooks";
import { runMigrations } from "@stake/db/migrate";
import request from "supertest";
import { createApp } from "../../control-plane/src/app.ts";
import { createBeaconIndexer } from "../../control-plane/src/features/beacon-data/worker.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import { backgroundPubkey } from "../../devnet/beacon/chain.ts";
import { startProcess } from "../../scripts/lib/processes.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";

const VALIDATORS = Number(process.env.VALIDATORS ?? 10_000);
const EPOCHS = Number(process.env.EPOCHS ?? 225);
const INDEX_EPOCHS = Number(process.env.INDEX_EPOCHS ?? 3);
const RUNS = Number(process.env.RUNS ?? 200);
const S = 32;

// The simulated node in its own process, as a real node would be: its JSON work is not the indexer's.
const devnet = await startProcess({
  name: "beacon-devnet",
  entry: "devnet/beacon/main.ts",
  env: {
    ...process.env,
    PORT: "0",
    EXECUTION_PORT: "0",
    SLOT_MS: "0",
    SLOTS_PER_EPOCH: String(S),
    SECONDS_PER_SLOT: "12",
    BACKGROUND_VALIDATORS: String(VALIDATORS),
  },
  timeoutMs: 300_000,
});
const post = (path: string) => fetch(`${devnet.url}${path}`, { method: "POST" }).then((r) => r.json());
const info = await fetch(`${devnet.url}/devnet/execution`).then((r) => r.json());
const h = await createControlPlaneHarness({
  ETH_BEACON_URL: devnet.url,
  ETH_EXECUTION_URL: (info as { data: { url: string } }).data.url,
  BEACON_INDEXER_START_EPOCH: "0",
  BEACON_INDEXER_MAX_EPOCHS: "1",
});
await runMigrations(h.config.databaseUrl);
const small = await makeOrganisation(h.db);
const large = await makeOrganisation(h.db);
const pubkeys = Array.from({ length: VALIDATORS }, (_, i) => backgroundPubkey(i));
await h.sql`insert into beacon_validator_registrations (organisation_id, pubkey)
  select ${large.id}, unnest(${pubkeys}::text[])`;
await h.sql`insert into beacon_validator_registrations (organisation_id, pubkey)
  select ${small.id}, unnest(${pubkeys.slice(0, 100)}::text[])`;

// 1. Indexing one epoch of VALIDATORS tracked validators (every proposer is tracked: EL reads per block).
const indexer = createBeaconIndexer({
  db: h.db,
  config: h.config,
  logger: createLogger({ level: "silent", service: "bench" }),
});
let t = performance.now();
await post(`/devnet/advance?to_epoch=${INDEX_EPOCHS}`);
console.log(
  `chain: ${VALIDATORS} validators, ${INDEX_EPOCHS + 1} epochs produced in ${((performance.now() - t) / 1000).toFixed(1)} s`,
);
const steps: string[] = [];
for (let e = 0; e <= INDEX_EPOCHS; e++) {
  t = performance.now();
  const cpu = process.cpuUsage();
  const written = await indexer.step();
  const used = process.cpuUsage(cpu);
  steps.push(
    `${(performance.now() - t).toFixed(0)} ms (CPU ${((used.user + used.system) / 1000).toFixed(0)} ms)`,
  );
  if (written.length !== 1) throw new Error(`step wrote ${written.length} epochs`);
}
console.log(
  `indexing one epoch of ${VALIDATORS} validators (${S} blocks, all proposers tracked), wall (indexer CPU):`,
);
console.log(`  ${steps.join(", ")}  (epoch 0 has no previous state; the node runs in its own process)`);
devnet.child.kill("SIGTERM");

// 2. EPOCHS epochs of rewards for every validator, after the indexed ones, with the daily rollup.
const first = INDEX_EPOCHS + 1;
const last = first + EPOCHS - 1;
t = performance.now();
await h.sql`insert into beacon_rewards (validator_index, epoch, balance_gwei, cl_reward_gwei, el_reward_gwei, finalized)
  select v, e, 32000000000 + (e * 10000), 9000 + ((v * 7 + e * 13) % 4000), case when (v + e) % 997 = 0 then 40000000 else 0 end, true
  from generate_series(0, ${VALIDATORS - 1}::int) v, generate_series(${first}::int, ${last}::int) e`;
const c = await h.sql`select genesis_time, seconds_per_slot, slots_per_epoch from beacon_indexer_cursor`;
const { genesis_time: genesis, seconds_per_slot: sps } = c[0] as {
  genesis_time: string;
  seconds_per_slot: number;
};
const epochSeconds = S * sps;
await h.sql`insert into beacon_rewards_daily as d (validator_index, day, cl_reward_gwei, el_reward_gwei, balance_sum_gwei, epochs)
  select validator_index, (to_timestamp((${genesis}::bigint + epoch * ${epochSeconds}::bigint)::float8) at time zone 'UTC')::date,
         sum(cl_reward_gwei), sum(el_reward_gwei), sum(balance_gwei), count(*)
  from beacon_rewards where epoch between ${first}::int and ${last}::int group by 1, 2
  on conflict (validator_index, day) do update set cl_reward_gwei = d.cl_reward_gwei + excluded.cl_reward_gwei,
    el_reward_gwei = d.el_reward_gwei + excluded.el_reward_gwei, balance_sum_gwei = d.balance_sum_gwei + excluded.balance_sum_gwei,
    epochs = d.epochs + excluded.epochs`;
await h.sql`update beacon_indexer_cursor set epoch = ${last}::int`;
await h.sql`vacuum analyze beacon_rewards`;
await h.sql`vacuum analyze beacon_rewards_daily`;
console.log(
  `stored ${VALIDATORS * EPOCHS} reward rows (+ daily rollup) in ${((performance.now() - t) / 1000).toFixed(1)} s`,
);
const sizes =
  await h.sql`select relname, n_live_tup::bigint as rows, pg_size_pretty(pg_total_relation_size(relid)) as size
  from pg_stat_user_tables where relname like 'beacon_%' and n_live_tup > 0 order by pg_total_relation_size(relid) desc`;
for (const s of sizes)
  console.log(`  ${String(s.relname).padEnd(30)} ${String(s.rows).padStart(10)} rows  ${s.size}`);

// The app as deployed: replies are not re-validated against their schemas (the tests do that).
const app = createApp({
  config: h.config,
  logger: createLogger({ level: "silent", service: "bench" }),
  db: h.db,
  redis: h.redis,
});
const day = (epoch: number) =>
  new Date((Number(genesis) + epoch * epochSeconds) * 1000).toISOString().slice(0, 10);
const thirtyDays = Math.ceil((30 * 86_400) / epochSeconds);
async function measure(name: string, key: string, path: string, query: Record<string, unknown>) {
  const ms: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const s = performance.now();
    const res = await request(app).get(path).set("api-key", key).query(query);
    ms.push(performance.now() - s);
    if (res.status !== 200) throw new Error(`${path}: ${res.status} ${JSON.stringify(res.body)}`);
  }
  ms.sort((a, b) => a - b);
  const p = (q: number) => (ms[Math.min(ms.length - 1, Math.floor(q * ms.length))] as number).toFixed(1);
  console.log(`${name.padEnd(58)} p50 ${p(0.5)} ms  p99 ${p(0.99)} ms  (${RUNS} requests)`);
}
for (const perPage of [10, 100]) {
  await measure(
    `rewards/epoch, 100 validators, 30-day range, per_page ${perPage}`,
    small.apiKey,
    "/api/rewards/epoch",
    {
      start_epoch: Math.max(0, last - thirtyDays + 1),
      end_epoch: last,
      per_page: perPage,
    },
  );
}
await measure("rewards/date, 100 validators, 30 days, interval 1d", small.apiKey, "/api/rewards/date", {
  start_date: day(last - thirtyDays + 1),
  end_date: day(last),
  interval: "1d",
  per_page: 30,
});
await measure(`rewards/overview, ${VALIDATORS} validators`, large.apiKey, "/api/rewards/overview", {});
await h.close();
