import { SUI_DELEGATORS_QUEUE } from "../../control-plane/src/features/sui-rewards/jobs.ts";
import { type Rate, suiAmount, tokenAmount } from "../../devnet/sui/chain.ts";
import { buildScenario, type Scenario } from "../../devnet/sui/scenario.ts";
import { type SuiDevnet, startSuiDevnet } from "../../devnet/sui/server.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";
import { rootOf, startJobs } from "../helpers/jobs.ts";

/**
 * The simulated Sui node with the demo scenario, the real control plane pointed at it (the operator's
 * validators: `operator` and `sample`), the indexer run once, and an approved organisation's key.
 */
export async function startSuiEnv(env: Record<string, string> = {}) {
  const scenario = buildScenario();
  const dev = await startSuiDevnet({ chain: scenario.chain });
  const h = await createControlPlaneHarness({
    SUI_RPC_URL: dev.url,
    SUI_VALIDATOR_ADDRESSES: `${scenario.validators.operator},${scenario.validators.sample}`,
    ...env,
  });
  const indexer = rootOf(h).followers.sui;
  await indexer.runOnce();
  // The worker's first sync of a delegator a request asks for (the request waits for it).
  const jobs = await startJobs(h, [SUI_DELEGATORS_QUEUE]);
  const org = await makeOrganisation(h.db);
  return {
    scenario,
    dev,
    h,
    indexer,
    key: org.apiKey,
    jobs,
    async close() {
      await jobs.close();
      await h.close();
      await dev.close();
    },
  };
}
export type SuiEnv = Awaited<ReturnType<typeof startSuiEnv>>;

/**
 * Reference value of one stake from the simulated chain's own staking-pool code (devnet/sui/chain.ts, not
 * the area's rewards.ts): C(e) = max(0, get_sui_amount(rate(e), get_token_amount(rate(a), P)) − P).
 */
export function chainCumulative(scenario: Scenario, poolId: string, principal: bigint, a: number, e: number) {
  const chain = scenario.chain;
  const pool = chain.validators.find((v) => v.pool.id === poolId)!.pool;
  const rate = (x: number): Rate => chain.rateAt(pool, x);
  if (e <= a) return 0n;
  const value = suiAmount(rate(e), tokenAmount(rate(a), principal));
  return value > principal ? value - principal : 0n;
}

export type { SuiDevnet };
