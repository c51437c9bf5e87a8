import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import supertest from "supertest";
import { reindexArea } from "../../control-plane/src/platform/chain-identity/guard.ts";
import type { PolygonDevnet } from "../../devnet/polygon/chain.ts";
import { buildHistory } from "../../devnet/polygon/scenario.ts";
import { chainCommands } from "../../scripts/operator/chain.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { eventually } from "../helpers/eventually.ts";
import { areaOf } from "../helpers/jobs.ts";
import { operatorContext } from "../helpers/operator.ts";

// The L1 devnet rebuilt on the same port is a new chain behind the same URL (what `npm start` again did):
// its blocks have other hashes, and fewer of them may exist (docs/architecture.md §13, "Chain identity").
let devnet: PolygonDevnet;
let h: ControlPlaneHarness;
let apiKey: string;
let port = 0;

async function startL1() {
  ({ devnet } = await buildHistory({ days: 2, checkpointSeconds: 6 * 3600, ...(port ? { port } : {}) }));
  port = Number(new URL(devnet.url).port);
}

const apr = () => supertest(h.app).get("/api/apr").set("x-api-key", apiKey);
const snapshots = () => h.sql`select block::text, timestamp::text, reward_per_share, exchange_rate, source
  from polygon_snapshots order by block`;
const snapshotter = async (policy: "refuse" | "reindex" = "refuse") =>
  (await areaOf(h, "polygon-rewards", { ...h.config, chainResetPolicy: policy })).indexer;

/** Every stored snapshot is of a block the node has, with the node's values (a fresh index agrees). */
async function assertNodesSnapshots() {
  const held = await snapshots();
  for (const s of held) {
    const block = await devnet.public.getBlock({ blockNumber: BigInt(s.block) });
    assert.equal(String(block.timestamp), s.timestamp, `block ${s.block} is not the node's`);
  }
  await reindexArea(h.db, "polygon-rewards");
  await (await snapshotter()).runOnce();
  assert.deepEqual(await snapshots(), held, "a fresh index of the node's chain holds other snapshots");
}

before(async () => {
  await startL1();
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "polygon-rewards",
    POLYGON_L1_RPC_URL: devnet.url,
    POLYGON_SNAPSHOT_DEPTH: "0",
  });
  apiKey = (await makeOrganisation(h.db)).apiKey;
});
after(async () => {
  await h?.close();
  await devnet?.close();
});

test("a switched L1 node: APR answers 503 CHAIN_MISMATCH, then `chain reindex` and the new chain's snapshots", async () => {
  await (await snapshotter()).runOnce();
  const first = await apr();
  assert.equal(first.status, 200, JSON.stringify(first.body));

  await devnet.close();
  await startL1();
  const refused = await eventually(
    async () => {
      const res = await apr();
      return res.status === 503 && res.body;
    },
    { what: "503 from the API on the switched L1" },
  );
  const body = JSON.stringify(refused);
  assert.match(body, /"code":"CHAIN_MISMATCH"/, body);
  assert.match(body, /indexed: .*anchor_hash=0x[0-9a-f]{64}.*; node: .*anchor_hash=0x[0-9a-f]{64}/, body);

  const held = await snapshots();
  const pass = await (await snapshotter()).runOnce();
  assert.equal(pass.refused, "CHAIN_MISMATCH");
  assert.deepEqual(await snapshots(), held, "a pass on another chain writes nothing");

  const command = chainCommands["chain reindex"]!;
  const ctx = operatorContext({ db: h.db, redis: h.redis, keys: {} as never });
  const dry = await command.run(ctx, { positionals: ["polygon-rewards"], flags: { "dry-run": true } });
  assert.match(dry.text, /polygon_snapshots [1-9]/, dry.text);
  await command.run(ctx, { positionals: ["polygon-rewards"], flags: {} });
  assert.equal((await snapshots()).length, 0);

  await (await snapshotter()).runOnce();
  const res = await apr();
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.equal(BigInt(res.body.data.block), await devnet.public.getBlockNumber());
  await assertNodesSnapshots();
});

test("CHAIN_RESET_POLICY=reindex: the next pass re-indexes the L1 by itself", async () => {
  await devnet.close();
  await startL1();
  await (await snapshotter("reindex")).runOnce();
  const res = await apr();
  assert.equal(res.status, 200, JSON.stringify(res.body));
  await assertNodesSnapshots();
});
