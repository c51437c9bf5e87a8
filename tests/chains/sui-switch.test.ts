import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import supertest from "supertest";
import { reindexArea } from "../../control-plane/src/platform/chain-identity/guard.ts";
import { buildScenario, DEMO } from "../../devnet/sui/scenario.ts";
import { type SuiDevnet, startSuiDevnet } from "../../devnet/sui/server.ts";
import { chainCommands } from "../../scripts/operator/chain.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf } from "../helpers/jobs.ts";
import { operatorContext } from "../helpers/operator.ts";

// A Sui node behind the same URL that serves a chain started a day later: another chain identifier
// (docs/architecture.md §13, "Chain identity").
let dev: SuiDevnet;
let h: ControlPlaneHarness;
let apiKey: string;
const scenario = buildScenario();

const rows = () => h.sql`select epoch, start_ms::text from sui_epochs order by epoch`;
const rewards = () =>
  supertest(h.app)
    .post("/sui/rewards/daily")
    .set("x-api-key", apiKey)
    .send({ stake_account_address: DEMO.delegator, start_date: "2025-01-01", end_date: "2025-01-03" });
const indexer = async () => (await areaOf(h, "sui-rewards")).indexer;

before(async () => {
  dev = await startSuiDevnet({ chain: scenario.chain });
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "sui-rewards",
    SUI_RPC_URL: dev.url,
    SUI_VALIDATOR_ADDRESSES: `${scenario.validators.operator},${scenario.validators.sample}`,
  });
  apiKey = (await makeOrganisation(h.db)).apiKey;
});
after(async () => {
  await h?.close();
  await dev?.close();
});

test("a switched Sui node: 503 CHAIN_MISMATCH, nothing written, then `chain reindex` and the new chain's epochs", async () => {
  await (await indexer()).runOnce();
  const first = await rows();
  assert.ok(first.length > 0);
  const port = Number(new URL(dev.url).port);
  await dev.close();
  const other = buildScenario({ genesisShiftMs: 86_400_000 });
  dev = await startSuiDevnet({ chain: other.chain, port });

  const pass = (await (await indexer()).runOnce()) as { refused?: string };
  assert.equal(pass.refused, "CHAIN_MISMATCH");
  const refused = await rewards();
  assert.equal(refused.status, 503, JSON.stringify(refused.body));
  assert.match(
    JSON.stringify(refused.body),
    /chain_identifier=[0-9a-f]{8}; node: chain_identifier=.*"code":"CHAIN_MISMATCH"/,
    JSON.stringify(refused.body),
  );
  assert.deepEqual(await rows(), first, "a pass on another chain writes nothing");

  const ctx = operatorContext({ db: h.db, redis: h.redis, keys: {} as never });
  await chainCommands["chain reindex"]!.run(ctx, { positionals: ["sui-rewards"], flags: {} });
  await (await indexer()).runOnce();
  const now = await rows();
  assert.equal(now[0]?.start_ms, String(other.chain.epochStartMs[0]), "the new chain's genesis");
  await reindexArea(h.db, "sui-rewards");
  await (await indexer()).runOnce();
  assert.deepEqual(await rows(), now, "a fresh index of the node's chain holds other epochs");
});
