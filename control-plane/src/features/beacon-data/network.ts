import { CONSOLIDATION_REQUEST_CONTRACT, WITHDRAWAL_REQUEST_CONTRACT } from "../../chains/el-requests.ts";
import type { BeaconApi, ExecutionApi } from "./client.ts";
import { networkFigures } from "./network-figures.ts";

export interface NetworkDeps {
  beacon: Pick<
    BeaconApi,
    "spec" | "churnSpec" | "headSlot" | "validatorsByStatus" | "pendingDeposits" | "pendingPartialWithdrawals"
  >;
  execution: Pick<ExecutionApi, "requestFee">;
  network: string;
  /** How long one answer is served to every caller before the nodes are asked again (default 12 s). */
  cacheMs?: number;
  now?: () => number;
}

/**
 * GET /api/network/ethereum: the network's figures from the head state and the EIP-7002/7251 fees from
 * their system contracts. One answer is shared by every caller for `cacheMs` and one node read is in flight
 * at a time: the active registry is the largest answer a node gives (a million validators on mainnet), so
 * no caller, however many keys it has, makes the node read it more often than that.
 */
export function createNetworkReads(deps: NetworkDeps) {
  const cacheMs = deps.cacheMs ?? 12_000;
  const now = deps.now ?? Date.now;
  let cached: { at: number; answer: Promise<ReturnType<typeof present>> } | null = null;

  const present = (figures: ReturnType<typeof networkFigures>, fees: [bigint, bigint]) => ({
    network: deps.network,
    state: "head" as const,
    ...figures,
    request_fees: { withdrawal_request: fees[0].toString(), consolidation_request: fees[1].toString() },
  });

  async function read() {
    // Asked with every answer, not kept: a node switched to another chain has other constants.
    // One slot for every state read, so the registry and the queues are of the same state.
    const [chain, churn, slot] = await Promise.all([
      deps.beacon.spec(),
      deps.beacon.churnSpec(),
      deps.beacon.headSlot(),
    ]);
    const [active, pendingDeposits, pendingPartials, fees] = await Promise.all([
      deps.beacon.validatorsByStatus(slot, ["active"]),
      deps.beacon.pendingDeposits(slot),
      deps.beacon.pendingPartialWithdrawals(slot),
      Promise.all([
        deps.execution.requestFee(WITHDRAWAL_REQUEST_CONTRACT),
        deps.execution.requestFee(CONSOLIDATION_REQUEST_CONTRACT),
      ]),
    ]);
    const figures = networkFigures({
      slot,
      slotsPerEpoch: chain.slotsPerEpoch,
      secondsPerSlot: chain.secondsPerSlot,
      genesisTime: chain.genesisTime,
      spec: churn,
      active,
      pendingDeposits,
      pendingPartials,
    });
    return present(figures, fees);
  }

  async function ethereumNetwork() {
    const t = now();
    if (!cached || t - cached.at >= cacheMs) {
      const answer = read();
      cached = { at: t, answer };
      // A failure is not served to the next caller: it asks again.
      answer.catch(() => {
        if (cached?.answer === answer) cached = null;
      });
    }
    return cached.answer;
  }

  return { ethereumNetwork };
}
