import { devnetId, SuiChain } from "./chain.ts";

/**
 * The demo chain of `npm start` and the tests: three validators, their pools advancing every epoch, and
 * delegators whose history covers what the rewards area must get right.
 *
 * - `sample` (commission 0): only the spec sample's delegator stakes there, 1,506,659,480,391,677 MIST
 *   requested in epoch 628 (active from 629). The pool's rewards for epochs 629–632 are the ones the spec
 *   sample implies (docs/chains/polygon-sui.md §2.4), so its rows for 630 and 631 are the sample's, to the MIST.
 * - `operator` (commission 5 %): a whale and the demo delegator, whose stakes activate in epochs 611, 641
 *   and 651; the one of 641 is withdrawn in epoch 670. Epoch 660 runs in safe mode (no rate for it; the
 *   rewards of 659 and 660 are paid at the change to 661).
 *   A third delegator stakes once (active from 646) and withdraws in 662, across the safe-mode epoch.
 * - `other`: a pool that is not the operator's; the demo delegator's stake there is not reported.
 *
 * Epoch 630 starts at 2025-01-01T00:00:00Z (the sample's date), epochs last 24 h, the chain stands at
 * epoch 700 (2025-03-12).
 */
export const SAMPLE = {
  delegator: devnetId("delegator:sample"),
  principal: 1_506_659_480_391_677n,
  requestEpoch: 628,
  /** Rewards of epochs 629..632 (the sample's totalRewards differences). */
  rewards: [104_181_256_487n, 104_045_285_435n, 104_161_073_304n, 104_131_768_377n],
} as const;

export const DEMO = {
  delegator: devnetId("delegator:demo"),
  whale: devnetId("delegator:whale"),
  /** Stakes once (requested in 645) and withdraws in 662, across the safe-mode epoch. */
  unstaker: devnetId("delegator:unstaker"),
  stakes: [
    { epoch: 610, amount: 1_000_000_000_000n },
    { epoch: 640, amount: 2_500_000_000_000n },
    { epoch: 650, amount: 700_000_000_000n },
  ],
  otherPoolStake: { epoch: 615, amount: 300_000_000_000n },
  unstake: { epoch: 670, stakeIndex: 1 },
  safeModeEpoch: 660,
  currentEpoch: 700,
} as const;

export const EPOCH_630_START_MS = Date.UTC(2025, 0, 1);
const DAY_MS = 86_400_000;
/** About 2.52 % a year, the sample's rate. */
const APR_BPS = 252n;

export interface Scenario {
  chain: SuiChain;
  /** The demo delegator's StakedSui object ids, in the order of DEMO.stakes. */
  demoStakeIds: string[];
  /** Rewards the chain paid at the two withdrawals (UnstakingRequestEvent.reward_amount). */
  unstakeReward: bigint;
  unstakerReward: bigint;
  /** Validator addresses by name. */
  validators: Record<"sample" | "operator" | "other", string>;
  /** Ends the current epoch with every pool's usual reward (tests advance the chain with it). */
  advance(opts?: { safeMode?: boolean }): void;
}

export function buildScenario(
  /** `genesisShiftMs`: the same history on a chain started that much later (another chain identifier). */
  opts: { untilEpoch?: number; genesisShiftMs?: number } = {},
): Scenario {
  const until = opts.untilEpoch ?? DEMO.currentEpoch;
  const chain = new SuiChain({ genesisMs: EPOCH_630_START_MS - 630 * DAY_MS + (opts.genesisShiftMs ?? 0) });
  const sample = chain.addValidator("sample", 0n);
  const operator = chain.addValidator("operator", 500n);
  const other = chain.addValidator("other", 1000n);
  const demoStakeIds: string[] = [];
  let unstakeReward = 0n;
  let unstakerReward = 0n;
  let unstakerStake = "";

  const advance = (o: { safeMode?: boolean } = {}) => {
    const rewards = new Map<string, bigint>();
    for (const v of [operator, other]) rewards.set(v.address, chain.aprReward(v.address, APR_BPS));
    const i = chain.epoch - 629;
    const fixed = SAMPLE.rewards[i];
    rewards.set(sample.address, fixed ?? chain.aprReward(sample.address, APR_BPS));
    chain.advanceEpoch({ rewards, safeMode: o.safeMode ?? false });
  };

  // Self-stakes from genesis keep every pool's rate moving.
  chain.requestAddStake(operator.address, operator.address, 2_000_000_000_000_000n);
  chain.requestAddStake(other.address, other.address, 1_000_000_000_000_000n);
  while (chain.epoch < until) {
    const e = chain.epoch;
    if (e === 600) chain.requestAddStake(DEMO.whale, operator.address, 5_000_000_000_000_000n);
    if (e === SAMPLE.requestEpoch) chain.requestAddStake(SAMPLE.delegator, sample.address, SAMPLE.principal);
    for (const s of DEMO.stakes) {
      if (e === s.epoch)
        demoStakeIds.push(chain.requestAddStake(DEMO.delegator, operator.address, s.amount).id);
    }
    if (e === DEMO.otherPoolStake.epoch) {
      chain.requestAddStake(DEMO.delegator, other.address, DEMO.otherPoolStake.amount);
    }
    if (e === 645)
      unstakerStake = chain.requestAddStake(DEMO.unstaker, operator.address, 1_234_000_000_000n).id;
    if (e === 662) unstakerReward = chain.requestWithdrawStake(DEMO.unstaker, unstakerStake);
    if (e === DEMO.unstake.epoch) {
      unstakeReward = chain.requestWithdrawStake(DEMO.delegator, demoStakeIds[DEMO.unstake.stakeIndex]!);
    }
    advance({ safeMode: e + 1 === DEMO.safeModeEpoch });
  }
  return {
    chain,
    demoStakeIds,
    unstakeReward,
    unstakerReward,
    validators: { sample: sample.address, operator: operator.address, other: other.address },
    advance,
  };
}
