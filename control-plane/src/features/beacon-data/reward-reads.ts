import { notIndexedYet } from "../../errors.ts";
import { pageEnvelope, pageOf } from "../../http/paging.ts";
import { breakdownJson, rowBreakdownJson } from "./cl-breakdown.ts";
import { indexedSince } from "./rates.ts";
import { type BeaconDataRepo, NO_TOTALS, type Totals } from "./repo.ts";
import type { DateQuery, EpochQuery } from "./schemas.ts";

const DAY = 86_400;
const SECONDS_PER_YEAR = 31_557_600n; // 365.25 days
const envelope = (q: { page: number; per_page: number }, total: number) => pageEnvelope(pageOf(q), total);
const isoDay = (unix: number) => new Date(unix * 1000).toISOString().slice(0, 10);
const dayUnix = (d: string) => Date.parse(`${d}T00:00:00Z`) / 1000;

type Cursor = NonNullable<Awaited<ReturnType<BeaconDataRepo["cursor"]>>>;

function groupBy<T>(rows: readonly T[], key: (r: T) => number): Map<number, T[]> {
  const m = new Map<number, T[]>();
  for (const r of rows) {
    const list = m.get(key(r));
    if (list) list.push(r);
    else m.set(key(r), [r]);
  }
  return m;
}

const reward = (
  r: { validator_index: number; cl: string; el: string; mev: string; fees: string; [part: string]: unknown },
  pubkeyOf: Map<number, string>,
) => ({
  pubkey: pubkeyOf.get(r.validator_index) ?? "",
  cl_reward: r.cl,
  cl_breakdown: breakdownJson(r),
  el_reward: r.el,
  mev_reward: r.mev,
  priority_fees: r.fees,
  index: r.validator_index,
});

/** A range's totals as the reward responses carry them (Gwei strings). */
const totalsOf = (t: Totals) => ({
  total_cl_rewards: t.cl.toString(),
  total_cl_breakdown: breakdownJson(t.breakdown),
  total_el_rewards: t.el.toString(),
  total_mev_rewards: t.mev.toString(),
  total_priority_fees: t.fees.toString(),
});

/**
 * APY in percent: rewards ÷ time-weighted stake, annualised. Σ end-of-epoch balances over the window's
 * validator-epochs is the stake × time (in epochs); rewards ÷ that is the return per Gwei per epoch.
 */
export function apyPercent(rewardsGwei: bigint, stakeEpochsGwei: bigint, epochSeconds: number): number {
  if (stakeEpochsGwei <= 0n) return 0;
  const scaled =
    (rewardsGwei * 100n * SECONDS_PER_YEAR * 1_000_000n) / (stakeEpochsGwei * BigInt(epochSeconds));
  return Number(scaled) / 1_000_000;
}

/** Epochs the indexer may trail the chain's clock by in its normal course (a step every few seconds). */
const INDEXER_SLACK_EPOCHS = 2;

/**
 * Whether the index trails the chain: the beacon clock (genesis + slots × seconds per slot, which a live node's
 * head follows) has completed more than INDEXER_SLACK_EPOCHS epochs past the last one indexed. Zeros read
 * then may be zeros only because those epochs are not indexed yet.
 */
export function indexerBehind(
  c: { epoch: number; genesisTime: number; secondsPerSlot: number; slotsPerEpoch: number },
  nowSeconds: number,
): boolean {
  const lastComplete = Math.floor((nowSeconds - c.genesisTime) / (c.secondsPerSlot * c.slotsPerEpoch)) - 1;
  return lastComplete - c.epoch > INDEXER_SLACK_EPOCHS;
}

/**
 * How the totals of an epoch range are read: whole UTC days inside it from the daily rollup, the partial
 * days at its edges from the epochs.
 */
function rangeParts(c: Cursor, start: number, end: number): Parameters<BeaconDataRepo["totals"]>[1] {
  const epochSeconds = c.slotsPerEpoch * c.secondsPerSlot;
  const dayOfEpoch = (e: number) => Math.floor((c.genesisTime + e * epochSeconds) / DAY);
  const firstEpochOfDay = (d: number) => Math.max(0, Math.ceil((d * DAY - c.genesisTime) / epochSeconds));
  let d1 = dayOfEpoch(start);
  if (firstEpochOfDay(d1) !== start) d1++;
  let d2 = dayOfEpoch(end);
  if (firstEpochOfDay(d2 + 1) - 1 !== end) d2--;
  if (d1 > d2) return { epochs: [[start, end]] };
  return {
    days: [isoDay(d1 * DAY), isoDay(d2 * DAY)],
    epochs: [
      [start, firstEpochOfDay(d1) - 1],
      [firstEpochOfDay(d2 + 1), end],
    ],
  };
}

type EpochRows = readonly Awaited<ReturnType<BeaconDataRepo["epochRewards"]>>[number][];

/** One summary entry per epoch of the page, with the organisation's validators' rewards in it. */
function epochSummary(c: Cursor, rows: EpochRows, page: [number, number], pubkeyOf: Map<number, string>) {
  const epochSeconds = c.slotsPerEpoch * c.secondsPerSlot;
  const byEpoch = new Map(rows.map((r) => [r.epoch, r]));
  const summary = [];
  for (let e = page[0]; e <= page[1]; e++) {
    const r = byEpoch.get(e);
    summary.push({
      epoch: e,
      timestamp: new Date((c.genesisTime + e * epochSeconds) * 1000).toISOString(),
      validators: r
        ? r.indices.map((index, i) => ({
            pubkey: pubkeyOf.get(index) ?? "",
            cl_reward: r.cl[i] as string,
            cl_breakdown: rowBreakdownJson(r, i, r.cl[i] as string),
            el_reward: r.el[i] as string,
            mev_reward: r.mev[i] as string,
            priority_fees: r.fees[i] as string,
            index,
          }))
        : [],
    });
  }
  return summary;
}

/** The organisation's rewards as indexed: overview with APYs, per epoch, per day bucket. */
export function createRewardReads(deps: { repo: BeaconDataRepo; network: string; provider: string }) {
  const { repo } = deps;

  async function chain() {
    const c = await repo.cursor();
    return c && c.epoch >= 0 ? c : null;
  }

  /** What the reward reads add so that zeros read while indexing runs are not taken for "no rewards". */
  async function indexState(organisationId: string, c: Cursor | null) {
    const pending = await repo.rollUpPending(organisationId);
    return {
      indexed_through_epoch: c?.epoch ?? null,
      indexing: !c || indexerBehind(c, Date.now() / 1000) || pending,
    };
  }

  async function orgIndices(organisationId: string) {
    const rows = await repo.indices(organisationId);
    return {
      indices: rows.map((r) => r.validator_index),
      pubkeyOf: new Map(rows.map((r) => [r.validator_index, r.pubkey])),
    };
  }

  async function overview(organisationId: string) {
    const c = await chain();
    const epochSeconds = c ? c.slotsPerEpoch * c.secondsPerSlot : 384;
    const lastDay = c ? isoDay(c.genesisTime + c.epoch * epochSeconds) : null;
    const [{ row, activeStake }, state] = await Promise.all([
      repo.overview(organisationId, lastDay),
      indexState(organisationId, c),
    ]);
    // A window the index does not reach back over is null, never the part it has annualised.
    const apy = (n: number) =>
      c && lastDay && indexedSince(c, dayUnix(lastDay) / DAY - n + 1)
        ? apyPercent(BigInt(row[`r${n}`] ?? 0), BigInt(row[`s${n}`] ?? 0), epochSeconds)
        : null;
    return {
      network: deps.network,
      provider: deps.provider,
      total_active_stake: activeStake.toString(),
      total_cl_rewards: row.cl ?? "0",
      total_cl_breakdown: breakdownJson(row),
      total_el_rewards: row.el ?? "0",
      total_mev_rewards: row.mev ?? "0",
      total_priority_fees: row.fees ?? "0",
      apy_7d: apy(7),
      apy_30d: apy(30),
      apy_365d: apy(365),
      apy_unit: "percent_per_year" as const,
      ...state,
    };
  }

  async function epochs(organisationId: string, q: EpochQuery) {
    const [c, { indices, pubkeyOf }] = await Promise.all([chain(), orgIndices(organisationId)]);
    if (!c || q.end_epoch > c.epoch) {
      // One epoch is when the indexer next moves its head (a minute before it has read the chain at all).
      const retry = c ? c.slotsPerEpoch * c.secondsPerSlot : 60;
      throw notIndexedYet(`Epochs up to ${c?.epoch ?? "none"} are indexed; end_epoch is beyond`, retry);
    }
    const from = q.start_epoch + (q.page - 1) * q.per_page;
    const to = Math.min(q.end_epoch, from + q.per_page - 1);
    // The page's rows and the range's totals are independent: two pool connections, one wait.
    const [rows, totals] = indices.length
      ? await Promise.all([
          from <= to ? repo.epochRewards(indices, from, to) : [],
          repo.totals(indices, rangeParts(c, q.start_epoch, q.end_epoch)),
        ])
      : [[], NO_TOTALS];
    return {
      start_epoch: q.start_epoch,
      end_epoch: q.end_epoch,
      ...totalsOf(totals),
      interval_summary: epochSummary(c, rows, [from, to], pubkeyOf),
      ...envelope(q, q.end_epoch - q.start_epoch + 1),
    };
  }

  async function dates(organisationId: string, q: DateQuery) {
    const start = dayUnix(q.start_date);
    const days = Number(q.interval.replace("d", ""));
    const total = Math.floor((dayUnix(q.end_date) - start) / DAY / days) + 1;
    const firstBucket = (q.page - 1) * q.per_page;
    const lastBucket = Math.min(total - 1, firstBucket + q.per_page - 1);
    const [{ indices, pubkeyOf }, state] = await Promise.all([
      orgIndices(organisationId),
      chain().then((c) => indexState(organisationId, c)),
    ]);
    const pageEnd = isoDay(Math.min(dayUnix(q.end_date), start + ((lastBucket + 1) * days - 1) * DAY));
    const [rows, totals] = indices.length
      ? await Promise.all([
          firstBucket <= lastBucket ? repo.dayBuckets(indices, q.start_date, pageEnd, days) : [],
          repo.totals(indices, { days: [q.start_date, q.end_date] }),
        ])
      : [[], NO_TOTALS];
    const byBucket = groupBy(rows, (r) => r.bucket);
    const interval_summary = [];
    for (let b = firstBucket; b <= lastBucket; b++)
      interval_summary.push({
        date: isoDay(start + b * days * DAY),
        validators: (byBucket.get(b) ?? []).map((r) => reward(r, pubkeyOf)),
      });
    return {
      start_date: q.start_date,
      end_date: q.end_date,
      ...totalsOf(totals),
      interval_summary,
      ...state,
      ...envelope(q, total),
    };
  }

  return { overview, epochs, dates };
}
