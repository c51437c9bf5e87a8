import { QUEUES } from "../../control-plane/src/queues.ts";
import { buildScenario, type Scenario } from "../../devnet/sui/scenario.ts";
import { type SuiDevnet, startSuiDevnet } from "../../devnet/sui/server.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf, startJobs } from "../helpers/jobs.ts";

/**
 * The simulated Sui node with the demo scenario, the real control plane pointed at it (the operator's
 * validators: `operator` and `sample`), the indexer run once, and an approved organisation's key.
 */
export async function startSuiEnv(
  env: Record<string, string> = {},
  /** Changes the chain before the node starts (e.g. more stakes). */
  prepare: (scenario: Scenario) => void = () => {},
) {
  const scenario = buildScenario();
  prepare(scenario);
  const dev = await startSuiDevnet({ chain: scenario.chain });
  const h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "sui-rewards",
    SUI_RPC_URL: dev.url,
    SUI_VALIDATOR_ADDRESSES: `${scenario.validators.operator},${scenario.validators.sample}`,
    ...env,
  });
  const { indexer } = await areaOf(h, "sui-rewards");
  await indexer.runOnce();
  // The worker's first sync of a delegator a request asks for (the request waits for it).
  const jobs = await startJobs(h, [QUEUES.suiDelegators.name]);
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
 * Reference reward of one stake through the start of epoch `e`, from the simulated chain's own books
 * (devnet/sui/chain.ts `worthAt`, not the area's rewards.ts): C(e) = max(0, worth(e) − P).
 */
export function chainCumulative(scenario: Scenario, stakeId: string, principal: bigint, e: number) {
  const worth = scenario.chain.worthAt(stakeId, e);
  return worth > principal ? worth - principal : 0n;
}

export type { SuiDevnet };
