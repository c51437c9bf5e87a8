import type { AssertServing } from "../../platform/chain-identity/guard.ts";
import { createNetworkReads, type NetworkDeps } from "./network.ts";
import { createRateReads } from "./rates.ts";
import type { RatesRepo } from "./rates-repo.ts";
import { createRegister, type RegistrationDeps } from "./registration.ts";
import { createRewardReads } from "./reward-reads.ts";
import { createValidatorReads } from "./validator-reads.ts";

export { apyPercent, indexerBehind } from "./reward-reads.ts";

/**
 * Reads of what the worker indexed wait behind the chain check: while the node serves another chain than
 * the one indexed, they answer 503 CHAIN_MISMATCH (docs/architecture.md §13, "Chain identity").
 */
function servingOnly<T extends Record<string, (...args: never[]) => Promise<unknown>>>(
  assertServing: AssertServing,
  reads: T,
): T {
  const guarded: Record<string, unknown> = {};
  for (const [name, read] of Object.entries(reads))
    guarded[name] = async (...args: never[]) => {
      await assertServing();
      return read(...args);
    };
  return guarded as T;
}

/** The beacon-data area's use cases: registration (registration.ts), and the reads of the index. */
export function createBeaconDataService(
  deps: RegistrationDeps & {
    network: "mainnet" | "hoodi";
    provider: string;
    /** Throws 503 CHAIN_MISMATCH while the beacon node serves another chain than the indexed one. */
    assertServing: AssertServing;
    rates: RatesRepo;
    /** What the network figures read: the beacon node's head state, the execution node's fees. */
    nodes: Omit<NetworkDeps, "network">;
  },
) {
  const network = deps.network === "mainnet" ? "MAINNET" : "HOODI";
  return {
    register: createRegister(deps),
    ...servingOnly(deps.assertServing, {
      ...createValidatorReads({ repo: deps.repo, network }),
      ...createRewardReads({ repo: deps.repo, network, provider: deps.provider }),
      ...createRateReads({ repo: deps.repo, rates: deps.rates }),
      ...createNetworkReads({ ...deps.nodes, network }),
    }),
  };
}

export type BeaconDataService = ReturnType<typeof createBeaconDataService>;
