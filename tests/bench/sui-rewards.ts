/**
 * Benchmark (not part of `npm test`): one delegator with 1,000 StakedSui objects in the operator's pool over
 * 365 epochs on the simulated Sui node. Indexes the pool and the delegator's stakes (a read never fetches
 * them: a delegator not yet indexed gets 503 NOT_INDEXED_YET), then POST /sui/rewards/daily over the whole
 * year (limit 100): cold (the first read after indexing) and warm.
 * Run: npm run bench:sui-rewards  (STAKES, EPOCHS, ROUNDS to change the size)
 */
import { performance } from "node:perf_hooks";
import { runMigrations } from "@stake/db/migrate";
import request from "supertest";
import { createSuiNode } from "../../control-plane/src/features/sui-rewards/client.ts";
import { createSuiIndexer } from "../../control-plane/src/features/sui-rewards/indexer.ts";
import { createSuiIndexerRepo } from "../../control-plane/src/features/sui-rewards/indexer-repo.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import { devnetId, SuiChain } from "../../devnet/sui/chain.ts";
import { startSuiDevnet } from "../../devnet/sui/server.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";

const STAKES = Number(process.env.STAKES ?? 1000);
const EPOCHS = Number(process.env.EPOCHS ?? 365);
const ROUNDS = Number(process.env.ROUNDS ?? 20);
const START = Date.UTC(2025, 0, 1);

let t = performance.now();
const chain = new SuiChain({ genesisMs: START });
const validator = chain.addValidator("bench", 500n);
const whale = devnetId("bench:whale");
const delegator = devnetId("bench:delegator");
chain.requestAddStake(whale, validator.address, 10_000_000_000_000_000n);
// Stakes requested over the first 20 epochs, of different sizes, so every one has its own floors.
for (let i = 0; i < STAKES; i++) {
  if (i % Math.ceil(STAKES / 20) === 0)
    chain.advanceEpoch({ rewards: new Map([[validator.address, chain.aprReward(validator.address, 252n)]]) });
  chain.requestAddStake(delegator, validator.address, 1_000_000_000n + BigInt(i) * 7_919_000n);
}
while (chain.epoch < EPOCHS + 1) {
  chain.advanceEpoch({ rewards: new Map([[validator.address, chain.aprReward(validator.address, 252n)]]) });
}
const dev = await startSuiDevnet({ chain });
console.log(
  `setup: ${STAKES} stakes, ${chain.epoch} epochs in ${((performance.now() - t) / 1000).toFixed(1)} s`,
);

const h = await createControlPlaneHarness({
  SUI_RPC_URL: dev.url,
  SUI_VALIDATOR_ADDRESSES: validator.address,
});
await runMigrations(h.config.databaseUrl);
const indexer = createSuiIndexer({
  db: h.db,
  node: createSuiNode({ ...h.config.sui, maxBytes: h.config.nodeResponseMaxBytes }, h.config.network),
  repo: createSuiIndexerRepo(h.db),
  ...h.config.sui,
  recentlyQueried: async () => [],
  chain: { db: h.db, policy: "refuse", logger: createLogger({ level: "silent", service: "bench" }) },
  logger: createLogger({ level: "silent", service: "bench" }),
});
t = performance.now();
await indexer.indexPools();
console.log(`index: ${chain.epoch + 1} epochs of rates in ${(performance.now() - t).toFixed(0)} ms`);
t = performance.now();
await indexer.syncDelegator(delegator, null);
console.log(`index: the delegator's ${STAKES} stakes in ${(performance.now() - t).toFixed(0)} ms`);
const { apiKey } = await makeOrganisation(h.db);

const end = new Date(START + (EPOCHS - 1) * 86_400_000).toISOString().slice(0, 10);
const run = async (page: number) => {
  const s = performance.now();
  const res = await request(h.app)
    .post(`/sui/rewards/daily?page=${page}&limit=100`)
    .set("x-api-key", apiKey)
    .send({ stake_account_address: delegator, start_date: "2025-01-01", end_date: end });
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return {
    ms: performance.now() - s,
    rows: res.body.rewards.length,
    total: res.body.pagination.totalRewards,
  };
};
const cold = await run(1);
console.log(`cold (first read after indexing): ${cold.ms.toFixed(0)} ms, ${cold.rows} rows of ${cold.total}`);
for (const page of [1, 4]) {
  for (let i = 0; i < 3; i++) await run(page);
  const times: number[] = [];
  // This process's CPU (API, Postgres client and the HTTP client): the figure the machine's load does not move.
  const cpu = process.cpuUsage();
  for (let i = 0; i < ROUNDS; i++) times.push((await run(page)).ms);
  const { user, system } = process.cpuUsage(cpu);
  times.sort((a, b) => a - b);
  const q = (p: number) => times[Math.min(times.length - 1, Math.floor(p * times.length))]!.toFixed(1);
  const cpuMs = ((user + system) / 1000 / ROUNDS).toFixed(1);
  console.log(
    `warm page ${page}: median ${q(0.5)} ms, p90 ${q(0.9)} ms, max ${q(1)} ms, CPU ${cpuMs} ms a request (${ROUNDS} rounds)`,
  );
}
await h.close();
await dev.close();
