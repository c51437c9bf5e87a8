import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import supertest from "supertest";
import { lamportsToSol } from "../../control-plane/src/features/solana-stake/codec.ts";
import { type SolanaDevnet, startSolanaDevnet } from "../../devnet/solana/server.ts";
import { chainCommands } from "../../scripts/operator/chain.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { operatorContext } from "../helpers/operator.ts";
import { testWallet } from "../solana/setup.ts";

// A Solana devnet started again a day later behind the same URL is another cluster: another genesis hash
// (docs/architecture.md §13, "Chain identity"). The API fills the rewards cache itself, so it is the API
// that must refuse to read or fill it from the switched node.
const wallet = testWallet(0x53);
const SLOTS = 2160n; // 864 s per epoch
const FIRST = 1_700_000_000;
const SECOND = FIRST + 86_400;
let dev: SolanaDevnet;
let h: ControlPlaneHarness;
let key: string;

const rows = () => h.sql`select stake_account, epoch, inflation_lamports::text, mev_lamports::text
  from solana_epoch_rewards order by stake_account, epoch`;
const rewards = (genesis: number) =>
  supertest(h.app)
    .get("/api/v1/rewards")
    .set("x-api-key", key)
    .query({
      start_time: genesis,
      end_time: genesis + 6 * 864,
      period: "monthly",
      wallet_address: wallet.pubkey,
    });

async function startChain(genesis: number, port?: number) {
  dev = await startSolanaDevnet({
    slotsPerEpoch: SLOTS,
    genesisUnix: BigInt(genesis),
    fund: [{ pubkey: wallet.pubkey, lamports: 10_000_000_000n }],
    ...(port ? { port } : {}),
  });
}

/** Stakes `lamports` with the wallet through the API and lets five epochs of rewards accrue. */
async function stake(lamports: number): Promise<string> {
  const res = await supertest(h.app).post("/api/v1/stake").set("x-api-key", key).send({
    validatorPubKey: dev.chain.validators[1]?.vote,
    walletPubKey: wallet.pubkey,
    amount: lamports,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  dev.chain.submit(Buffer.from(wallet.sign(res.body.data.unsignedTransactionBase64), "base64"));
  dev.advanceEpochs(5);
  return res.body.data.stakeAccountPubkey;
}

before(async () => {
  await startChain(FIRST);
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "solana-stake",
    SOLANA_RPC_URL: dev.url,
    SOLANA_MEV_API_URL: dev.mevUrl,
    LOG_LEVEL: "error",
  });
  key = (await makeOrganisation(h.db)).apiKey;
});
after(async () => {
  await h?.close();
  await dev?.close();
});

test("a switched Solana node: rewards answer 503 CHAIN_MISMATCH, nothing written, then `chain reindex` and the new chain's rewards", async () => {
  await stake(5_000_000_000);
  const read = await rewards(FIRST);
  assert.equal(read.status, 200, JSON.stringify(read.body));
  const first = await rows();
  assert.equal(first.length, 5, "epochs 0-4 of the staked account are cached");

  const port = Number(new URL(dev.url).port);
  await dev.close();
  await startChain(SECOND, port);
  const acct = await stake(3_000_000_000);

  // At once, not after a grace period: the API writes what the node says, so it looks before every read.
  for (const [genesis, what] of [
    [SECOND, "the new chain's span"],
    [FIRST, "the cached span"],
  ] as const) {
    const refused = await rewards(genesis);
    assert.equal(refused.status, 503, `${what}: ${JSON.stringify(refused.body)}`);
    const body = JSON.stringify(refused.body);
    assert.match(body, /"code":"CHAIN_MISMATCH"/, body);
    assert.match(
      body,
      /indexed: genesis_hash=[1-9A-HJ-NP-Za-km-z]{32,44}; node: genesis_hash=[1-9A-HJ-NP-Za-km-z]{32,44}/,
      body,
    );
    assert.equal(refused.headers["retry-after"], "60");
  }
  const [, indexed, node] = /indexed: genesis_hash=(\w+); node: genesis_hash=(\w+)/.exec(
    JSON.stringify((await rewards(SECOND)).body),
  )!;
  assert.notEqual(indexed, node);
  const history = await supertest(h.app)
    .get("/api/v1/history/events")
    .set("x-api-key", key)
    .query({ start_time: SECOND, end_time: SECOND + 6 * 864, wallet_address: wallet.pubkey });
  assert.equal(history.status, 503, JSON.stringify(history.body));
  assert.equal(history.body.code, "CHAIN_MISMATCH");
  assert.deepEqual(await rows(), first, "a read on another chain writes nothing");

  const command = chainCommands["chain reindex"]!;
  const ctx = operatorContext({ db: h.db, redis: h.redis, keys: {} as never });
  const dry = await command.run(ctx, { positionals: ["solana-stake"], flags: { "dry-run": true } });
  assert.match(dry.text, /solana_epoch_rewards 5/, dry.text);
  assert.deepEqual(await rows(), first, "a dry run deletes nothing");
  await command.run(ctx, { positionals: ["solana-stake"], flags: {} });
  assert.equal((await rows()).length, 0);

  const res = await rewards(SECOND);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  const entries = res.body.data.rewards as {
    epoch: number;
    reward_types: { inflation_rewards: { sol: string }; mev_rewards: { sol: string } };
  }[];
  assert.deepEqual(
    entries.map((e) => e.epoch),
    [0, 1, 2, 3, 4],
  );
  let total = 0n;
  for (const e of entries.slice(1)) {
    const inf = dev.chain.inflation.get(`${acct}:${e.epoch}`);
    const mev = dev.chain.mev.find((m) => m.claimant === acct && m.epoch === e.epoch);
    assert.ok(inf && mev, `the node rewarded epoch ${e.epoch}`);
    assert.equal(e.reward_types.inflation_rewards.sol, lamportsToSol(BigInt(inf.amount)));
    assert.equal(e.reward_types.mev_rewards.sol, lamportsToSol(BigInt(mev.amount)));
    total += BigInt(inf.amount + mev.amount);
  }
  assert.equal(res.body.data.total_rewards.sol, lamportsToSol(total));
  const now = await rows();
  assert.deepEqual(
    now.map((r) => r.stake_account),
    Array(5).fill(acct),
    "only the new chain's account is cached",
  );
});
