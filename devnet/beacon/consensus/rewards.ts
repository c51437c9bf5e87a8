import "./preset.ts";
import type { PubkeyCache } from "@chainsafe/lodestar-z/pubkeys";
import type { BeaconConfig } from "@lodestar/config";
import {
  EFFECTIVE_BALANCE_INCREMENT,
  INACTIVITY_PENALTY_QUOTIENT_BELLATRIX,
  PARTICIPATION_FLAG_WEIGHTS,
  TIMELY_HEAD_FLAG_INDEX,
  TIMELY_SOURCE_FLAG_INDEX,
  TIMELY_TARGET_FLAG_INDEX,
  WEIGHT_DENOMINATOR,
} from "@lodestar/params";
import {
  beforeProcessEpoch,
  type CachedBeaconStateAltair,
  computeAttestationsRewards,
} from "@lodestar/state-transition";
import {
  getRewardsAndPenalties,
  processInactivityUpdates,
  processJustificationAndFinalization,
} from "@lodestar/state-transition/epoch";
import type { rewards } from "@lodestar/types";
import type { DevnetState } from "./fork.ts";

/**
 * The attestation rewards an epoch's processing pays, per validator and per component, exactly as the state
 * transition applies them to balances.
 *
 * `state` is the state at the last slot of the epoch after the one rewarded (whose processing pays it). On a
 * copy, the processing steps that come before the rewards run first (justification and finalization, which
 * decide the inactivity leak; the inactivity scores, which set the inactivity penalty), then Lodestar's
 * reward report (`computeAttestationsRewards`, what a Lodestar node's rewards endpoint serves) gives the
 * components. Two of them differ from what the state transition applies, and the devnet corrects them (the
 * only arithmetic of ours here): the report rounds each source, target and head amount to the nearest gwei
 * where the spec's `get_flag_index_deltas` (and Lodestar's own epoch processing) floors, and it divides the
 * inactivity penalty by Altair's `INACTIVITY_PENALTY_QUOTIENT` (3 × 2^24) where Bellatrix and later use
 * `INACTIVITY_PENALTY_QUOTIENT_BELLATRIX` (2^24), a third of the real penalty. Each validator's sum is then
 * checked against the state transition's own deltas (`getRewardsAndPenalties`): a difference throws.
 */
export async function exactAttestationsRewards(
  config: BeaconConfig,
  pubkeyCache: PubkeyCache,
  stateIn: DevnetState,
  ids?: (number | string)[],
): Promise<rewards.AttestationsRewards> {
  const state = stateIn.clone();
  const cache = beforeProcessEpoch(state);
  processJustificationAndFinalization(state, cache);
  // Deneb's and Electra's states are supersets of Altair's, which the step is typed with.
  processInactivityUpdates(state as unknown as CachedBeaconStateAltair, cache);
  const report = await computeAttestationsRewards(config, pubkeyCache, state, ids);
  const [credits, debits] = getRewardsAndPenalties(state, cache);
  const active = cache.totalActiveStakeByIncrement;
  const stake = {
    source: cache.prevEpochUnslashedStake.sourceStakeByIncrement,
    target: cache.prevEpochUnslashedStake.targetStakeByIncrement,
    head: cache.prevEpochUnslashedStake.headStakeByIncrement,
  };
  const weight = {
    source: PARTICIPATION_FLAG_WEIGHTS[TIMELY_SOURCE_FLAG_INDEX] as number,
    target: PARTICIPATION_FLAG_WEIGHTS[TIMELY_TARGET_FLAG_INDEX] as number,
    head: PARTICIPATION_FLAG_WEIGHTS[TIMELY_HEAD_FLAG_INDEX] as number,
  };
  /** A reported component, floored: a reward as `get_flag_index_deltas` computes it, or the penalty. */
  const exact = (flag: keyof typeof weight, increments: number, reported: number) => {
    const baseReward = increments * cache.baseRewardPerIncrement;
    if (reported > 0)
      return Math.floor((baseReward * weight[flag] * stake[flag]) / (active * WEIGHT_DENOMINATOR));
    if (reported < 0) return -Math.floor((baseReward * weight[flag]) / WEIGHT_DENOMINATOR);
    return 0;
  };
  const increment = (effectiveBalance: number) => Math.floor(effectiveBalance / 1e9);
  const idealRewards = report.idealRewards.map((r) => ({
    ...r,
    source: exact("source", increment(r.effectiveBalance), r.source),
    target: exact("target", increment(r.effectiveBalance), r.target),
    head: exact("head", increment(r.effectiveBalance), r.head),
  }));
  const totalRewards = report.totalRewards.map((r) => {
    const increments = state.epochCtx.effectiveBalanceIncrements[r.validatorIndex] ?? 0;
    // `get_inactivity_penalty_deltas`: every eligible validator that missed the target, by its score.
    const inactivity =
      r.target < 0
        ? -Math.floor(
            (increments * EFFECTIVE_BALANCE_INCREMENT * state.inactivityScores.get(r.validatorIndex)) /
              (config.INACTIVITY_SCORE_BIAS * INACTIVITY_PENALTY_QUOTIENT_BELLATRIX),
          )
        : 0;
    const fixed = {
      ...r,
      source: exact("source", increments, r.source),
      target: exact("target", increments, r.target),
      head: exact("head", increments, r.head),
      inactivity,
    };
    const sum = fixed.source + fixed.target + fixed.head + fixed.inclusionDelay + fixed.inactivity;
    const applied = (credits[r.validatorIndex] ?? 0) - (debits[r.validatorIndex] ?? 0);
    if (sum !== applied) {
      throw new Error(
        `attestation rewards of validator ${r.validatorIndex}: ${sum} reported, ${applied} applied`,
      );
    }
    return fixed;
  });
  return { idealRewards, totalRewards };
}
