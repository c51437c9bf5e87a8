import { unitsToNumber } from "@stake/db/units";
import type { ShareState } from "./client.ts";

/** `REWARD_PRECISION` of ValidatorShare: `rewardPerShare` is POL wei per share, scaled by 1e25. */
export const REWARD_PRECISION = 10n ** 25n;
const YEAR_S = 31_536_000n;
const DAY_S = 86_400n;
/** Decimal places kept by the one integer division before the percentage becomes a JSON number. */
const DIGITS = 12;

/** The APR windows of GET /api/apr, in days. */
export const APR_WINDOWS = [1, 7, 30] as const;

/**
 * How much earlier than "N days before the newest snapshot" a window's first snapshot may be: 5 % of the
 * window (72 min for 1 day, 36 h for 30 days). Past that the history has a hole and the field is null.
 */
export const windowSlackS = (days: number) => (BigInt(days) * DAY_S) / 20n;

/** `exchangeRate()`'s precision: 100 for the foundation validators (id < 8), 1e29 for every other one. */
export const ratePrecision = (validatorId: bigint) => (validatorId < 8n ? 100n : 10n ** 29n);

/**
 * APR in percent between two snapshots of one ValidatorShare, method A of docs/chains/polygon-sui.md §1.5:
 * a delegator staking S wei holds S·PREC/XR₀ shares, each earning ΔRPS/1e25 wei, so the return per wei
 * staked is ΔRPS·PREC / (XR₀·1e25) whoever the delegator is. Net of commission and of checkpoints the
 * validator missed, because `rewardPerShare` only grows by what delegators receive. Annualised simply
 * (rewards do not compound until restaked). Integers until the one division, rounded once to a number.
 */
export function aprPercent(from: ShareState, to: ShareState, precision: bigint): number | null {
  const seconds = to.timestamp - from.timestamp;
  if (seconds <= 0n || from.exchangeRate === 0n) return null;
  const numerator = 100n * (to.rewardPerShare - from.rewardPerShare) * precision * YEAR_S;
  const denominator = from.exchangeRate * REWARD_PRECISION * seconds;
  return unitsToNumber((numerator * 10n ** BigInt(DIGITS)) / denominator, DIGITS);
}
