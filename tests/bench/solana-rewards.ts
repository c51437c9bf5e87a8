/**
 * Benchmark (not part of `npm test`): one wallet with 1,000 stake accounts and 100 completed epochs on the
 * simulated node; GET /api/v1/rewards over all of them, cold (fills the Postgres cache) and warm.
 * Run: `npm run bench:rewards`.
 */
import { performance } from "node:perf_hooks";
import { runMigrations } from "@stake/db/migrate";
import request from "supertest";
import { buildStakeTx } from "../../control-plane/src/features/solana-stake/builder.ts";
import { startSolanaDevnet } from "../../devnet/solana/server.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";
import { testWallet } from "../solana/setup.ts";

const ACCOUNTS = Number(process.env.ACCOUNTS ?? 1000);
const EPOCHS = Number(process.env.EPOCHS ?? 100);
const GENESIS = 1_700_000_000;
const SLOTS = 21_600n; // 2.4 h epochs, so 100 epochs fit in one "monthly" span

const wallet = testWallet(0x51);
const dev = await startSolanaDevnet({
  slotsPerEpoch: SLOTS,
  genesisUnix: BigInt(GENESIS),
  fund: [{ pubkey: wallet.pubkey, lamports: BigInt(ACCOUNTS + 10) * 1_100_000_000n }],
});
const vote = dev.chain.validators[0]?.vote as string;
const rent = dev.chain.svm.minimumBalanceForRentExemption(200n);
let t = performance.now();
for (let i = 0; i < ACCOUNTS; i++) {
  const tx = buildStakeTx({
    wallet: wallet.pubkey,
    vote,
    seed: `bench:${i}`,
    stakeLamports: 1_000_000_000n,
    rentLamports: rent,
    blockhash: dev.chain.svm.latestBlockhash(),
  });
  dev.chain.submit(Buffer.from(wallet.sign(tx.base64), "base64"));
}
dev.advanceEpochs(EPOCHS);
console.log(
  `setup: ${ACCOUNTS} stake accounts, ${EPOCHS} epochs in ${((performance.now() - t) / 1000).toFixed(1)} s`,
);

const h = await createControlPlaneHarness({ SOLANA_RPC_URL: dev.url, SOLANA_MEV_API_URL: dev.mevUrl });
// The shared test template may predate this branch's migrations; bring this file's database up to date.
await runMigrations(h.config.databaseUrl);
const key = (await makeOrganisation(h.db)).apiKey;
const query = {
  start_time: GENESIS,
  end_time: GENESIS + Math.floor(Number(SLOTS) * 0.4 * (EPOCHS + 1)),
  period: "monthly",
  wallet_address: wallet.pubkey,
};
const run = async () => {
  const s = performance.now();
  const res = await request(h.app).get("/api/v1/rewards").set("x-api-key", key).query(query);
  if (res.status !== 200) throw new Error(JSON.stringify(res.body));
  return {
    ms: performance.now() - s,
    epochs: res.body.metadata.epochs_included,
    total: res.body.data.total_rewards.sol,
  };
};
t = performance.now();
const cold = await run();
console.log(`cold: ${cold.ms.toFixed(0)} ms (${cold.epochs} epochs, total ${cold.total} SOL)`);
const warm: number[] = [];
for (let i = 0; i < 5; i++) warm.push((await run()).ms);
warm.sort((a, b) => a - b);
console.log(`warm: median ${warm[2]?.toFixed(0)} ms, max ${warm[4]?.toFixed(0)} ms over 5 runs`);
console.log(`node calls: ${JSON.stringify(Object.fromEntries(dev.calls))}`);
await h.close();
await dev.close();
