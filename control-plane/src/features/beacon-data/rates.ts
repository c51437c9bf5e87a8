import { AppError } from "../../errors.ts";
import type { DaySums, RatesRepo } from "./rates-repo.ts";
import type { RatesQuery } from "./rates-schemas.ts";
import type { BeaconDataRepo } from "./repo.ts";

const DAY = 86_400;
const WINDOWS = [7, 30] as const;
const SCALE = 1_000_000n;
const dayNumber = (d: string) => Date.parse(`${d}T00:00:00Z`) / 1000 / DAY;
const isoDay = (n: number) => new Date(n * DAY * 1000).toISOString().slice(0, 10);

/** Where the index stands (the cursor row): the epochs it has read, and the chain's clock. */
export interface IndexSpan {
  firstEpoch: number;
  epoch: number;
  genesisTime: number;
  secondsPerSlot: number;
  slotsPerEpoch: number;
}

/**
 * Whether the index read every epoch of the UTC days [first, last] (day numbers since 1970): the days
 * begin at or after genesis, and the epochs from the first day's first to the last day's last lie within
 * [firstEpoch, epoch]. An epoch belongs to the day of its first slot, as in the daily rollups.
 */
export function daysCovered(c: IndexSpan, first: number, last: number): boolean {
  return indexedSince(c, first) && firstEpochOfDay(c, last + 1) - 1 <= c.epoch;
}

/** Whether the index has every epoch from the start of UTC day `first` (a day after genesis) on. */
export function indexedSince(c: IndexSpan, first: number): boolean {
  return first * DAY >= c.genesisTime && firstEpochOfDay(c, first) >= c.firstEpoch;
}

const firstEpochOfDay = (c: IndexSpan, d: number) =>
  Math.ceil((d * DAY - c.genesisTime) / (c.slotsPerEpoch * c.secondsPerSlot));

/**
 * Annualised rate in percent: earned ÷ average stake × 365 ÷ days. The average stake over a window of
 * E epochs is Σ end-of-epoch balances ÷ E and the window is E × epochSeconds ÷ 86,400 days, so the rate is
 * earned × 365 × 86,400 ÷ (Σ balances × epochSeconds) × 100: integers to the end, six decimals kept when it
 * becomes a number. Null without stake (nothing to divide by).
 */
export function aprPercent(earned: bigint, balanceSum: bigint, epochSeconds: number): number | null {
  if (balanceSum <= 0n) return null;
  const scaled = (earned * 100n * 365n * BigInt(DAY) * SCALE) / (balanceSum * BigInt(epochSeconds));
  return Number(scaled) / Number(SCALE);
}

type Rates = Record<`${"cl" | "el" | "total"}_${(typeof WINDOWS)[number]}d`, number | null>;

/**
 * One scope's series: for each day of [from, to], the 7- and 30-day windows ending that day, from the
 * scope's day sums (`rows`, which start 29 days before `from`). A window the index does not cover whole is
 * null, never extrapolated from the part it has.
 */
function series(c: IndexSpan | null, rows: readonly DaySums[], from: number, to: number): Rates[] {
  const base = from - 29;
  const n = to - base + 1;
  // Prefix sums of cl, el and balances: a window is the difference of two.
  const prefix = Array.from({ length: n + 1 }, () => [0n, 0n, 0n] as [bigint, bigint, bigint]);
  const byDay = new Map(rows.map((r) => [dayNumber(r.day), r]));
  for (let i = 0; i < n; i++) {
    const r = byDay.get(base + i);
    const p = prefix[i] as [bigint, bigint, bigint];
    prefix[i + 1] = r ? [p[0] + BigInt(r.cl), p[1] + BigInt(r.el), p[2] + BigInt(r.balance_sum)] : p;
  }
  const epochSeconds = c ? c.slotsPerEpoch * c.secondsPerSlot : 0;
  const out: Rates[] = [];
  for (let d = from; d <= to; d++) {
    const rates = {} as Rates;
    for (const w of WINDOWS) {
      const covered = c !== null && daysCovered(c, d - w + 1, d);
      const hi = prefix[d - base + 1] as [bigint, bigint, bigint];
      const lo = prefix[d - w + 1 - base] as [bigint, bigint, bigint];
      const [cl, el, stake] = [hi[0] - lo[0], hi[1] - lo[1], hi[2] - lo[2]];
      rates[`cl_${w}d`] = covered ? aprPercent(cl, stake, epochSeconds) : null;
      rates[`el_${w}d`] = covered ? aprPercent(el, stake, epochSeconds) : null;
      rates[`total_${w}d`] = covered ? aprPercent(cl + el, stake, epochSeconds) : null;
    }
    out.push(rates);
  }
  return out;
}

/** GET /api/rates: daily 7- and 30-day rates of the organisation, the network sample, and one validator. */
export function createRateReads(deps: { repo: BeaconDataRepo; rates: RatesRepo }) {
  async function validatorIndex(organisationId: string, id: string): Promise<number> {
    const mine = await deps.repo.indices(organisationId);
    const found = /^\d+$/.test(id)
      ? mine.find((v) => v.validator_index === Number(id))
      : mine.find((v) => v.pubkey === id.toLowerCase());
    if (!found)
      throw new AppError(
        "VALIDATOR_NOT_FOUND",
        "The organisation has no validator with this index or pubkey",
      );
    return found.validator_index;
  }

  async function rates(organisationId: string, q: RatesQuery) {
    const [from, to] = [dayNumber(q.from), dayNumber(q.to)];
    const [since, until] = [isoDay(from - 29), q.to];
    const [cursor, index] = await Promise.all([
      deps.repo.cursor(),
      q.validator === undefined ? null : validatorIndex(organisationId, q.validator),
    ]);
    const c = cursor && cursor.epoch >= 0 ? cursor : null;
    const [org, network, validator] = await Promise.all([
      deps.rates.organisation(organisationId, since, until),
      deps.rates.network(since, until),
      index === null ? null : deps.rates.validator(index, since, until),
    ]);
    const orgRates = series(c, org, from, to);
    const networkRates = series(c, network, from, to);
    const validatorRates = validator && series(c, validator, from, to);
    return {
      data: orgRates.map((organisation, i) => ({
        date: isoDay(from + i),
        organisation,
        network: networkRates[i] as Rates,
        ...(validatorRates ? { validator: validatorRates[i] as Rates } : {}),
      })),
    };
  }

  return { rates };
}
