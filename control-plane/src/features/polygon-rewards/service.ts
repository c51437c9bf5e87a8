import { DECIMALS, unitsToNumber } from "@stake/db/units";
import { notIndexedYet } from "../../errors.ts";
import { assertInScope, type StakingAuth } from "../../http/api-key-auth.ts";
import type { AssertServing } from "../../platform/chain-identity/guard.ts";
import { APR_WINDOWS, aprPercent, ratePrecision, windowSlackS } from "./apr.ts";
import type { PolygonL1 } from "./client.ts";
import type { PolygonRepo } from "./repo.ts";
import type { AprResponse, PendingRewardsRequest, PendingRewardsResponse } from "./schemas.ts";
import type { ValidatorShareResolver } from "./validator.ts";

const DAY_S = 86_400n;

/** Chain B rewards: a delegator's pending rewards read live from L1, the APR from the worker's snapshots. */
export function createPolygonRewardsService(deps: {
  l1: PolygonL1;
  repo: PolygonRepo;
  resolver: ValidatorShareResolver;
  /** Throws 503 CHAIN_MISMATCH while the L1 node serves another chain than the snapshots'. */
  assertServing: AssertServing;
}) {
  const { l1, repo, resolver } = deps;
  return {
    async pendingRewards(input: PendingRewardsRequest, auth: StakingAuth): Promise<PendingRewardsResponse> {
      const delegator = input.stake_account_address;
      assertInScope(auth, "polygon", delegator);
      const { address } = await resolver.get();
      const wei = await l1.liquidRewards(address, delegator);
      return {
        code: 200,
        data: { pending_rewards: unitsToNumber(wei, DECIMALS.pol), pending_rewards_wei: wei.toString() },
      };
    },

    async apr(): Promise<AprResponse> {
      await deps.assertServing();
      const { address, validatorId } = await resolver.get();
      const latest = await repo.latest(address);
      if (!latest) {
        // The worker has not stored a first ValidatorShare snapshot (first start, or the node never answered).
        throw notIndexedYet("No ValidatorShare snapshot stored yet; retry shortly", 60);
      }
      const [apr_1d, apr_7d, apr_30d] = await Promise.all(
        APR_WINDOWS.map(async (days) => {
          const target = latest.timestamp - BigInt(days) * DAY_S;
          const start = await repo.newestBetween(address, target - windowSlackS(days), target);
          return start ? aprPercent(start, latest, ratePrecision(validatorId)) : null;
        }),
      );
      return {
        code: 200,
        data: {
          apr_1d: apr_1d ?? null,
          apr_7d: apr_7d ?? null,
          apr_30d: apr_30d ?? null,
          as_of: new Date(Number(latest.timestamp) * 1000).toISOString(),
          block: Number(latest.block),
        },
      };
    },
  };
}

export type PolygonRewardsService = ReturnType<typeof createPolygonRewardsService>;
