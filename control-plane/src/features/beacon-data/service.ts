import { waitUntil } from "../../background-job.ts";
import { withdrawalAddressOf } from "../../chains/beacon.ts";
import { AppError, notIndexedYet } from "../../errors.ts";
import { assertInScope, type StakingAuth } from "../../http/api-key-auth.ts";
import { pageEnvelope, pageOf } from "../../http/paging.ts";
import type { BeaconApi } from "./client.ts";
import type { RegistrationsQueue } from "./jobs.ts";
import { type BeaconDataRepo, NO_TOTALS, type Totals } from "./repo.ts";
import type { DateQuery, EpochQuery, ListQuery, TransactionsQuery } from "./schemas.ts";

const DAY = 86_400;
const SECONDS_PER_YEAR = 31_557_600n; // 365.25 days
const envelope = (q: { page: number; per_page: number }, total: number) => pageEnvelope(pageOf(q), total);
const isoDay = (unix: number) => new Date(unix * 1000).toISOString().slice(0, 10);
const dayUnix = (d: string) => Date.parse(`${d}T00:00:00Z`) / 1000;

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
  r: { validator_index: number; cl: string; el: string; mev: string; fees: string },
  pubkeyOf: Map<number, string>,
) => ({
  pubkey: pubkeyOf.get(r.validator_index) ?? "",
  cl_reward: r.cl,
  el_reward: r.el,
  mev_reward: r.mev,
  priority_fees: r.fees,
  index: r.validator_index,
});

/** A range's totals as the reward responses carry them (Gwei strings). */
const totalsOf = (t: Totals) => ({
  total_cl_rewards: t.cl.toString(),
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
 * then may be zeros only because those epochs are not indexed yet (issue 25).
 */
export function indexerBehind(
  c: { epoch: number; genesisTime: number; secondsPerSlot: number; slotsPerEpoch: number },
  nowSeconds: number,
): boolean {
  const lastComplete = Math.floor((nowSeconds - c.genesisTime) / (c.secondsPerSlot * c.slotsPerEpoch)) - 1;
  return lastComplete - c.epoch > INDEXER_SLACK_EPOCHS;
}

export function createBeaconDataService(deps: {
  repo: BeaconDataRepo;
  network: "mainnet" | "hoodi";
  provider: string;
  /** Where a registration asks the worker for its roll-up. */
  registrations: Pick<RegistrationsQueue, "add">;
  /** How long a registration waits for the worker's roll-up before answering 503 (default 5 s). */
  registerWaitMs?: number;
  /** Whether the beacon chain knows a pubkey: its registry at the head, or its pending deposits. */
  beacon: Pick<BeaconApi, "validators" | "pendingDeposits">;
  /** Counts one registration call of the organisation; throws RATE_LIMITED past its budget. */
  limit: (organisationId: string) => Promise<unknown>;
  /** Pubkeys one organisation may register. */
  maxRegistered: number;
}) {
  const { repo } = deps;
  const network = deps.network === "mainnet" ? "MAINNET" : "HOODI";

  async function chain() {
    const c = await repo.cursor();
    return c && c.epoch >= 0 ? c : null;
  }

  /** What the reward reads add so that zeros read while indexing runs are not taken for "no rewards". */
  async function indexState(organisationId: string, c: Awaited<ReturnType<typeof chain>>) {
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

  /**
   * A pubkey nobody deposited for would be read every epoch and backfilled to the index's start for
   * nothing: only pubkeys in the registry at the head or with a pending deposit are registered.
   */
  async function assertKnown(pubkeys: string[]): Promise<void> {
    const inRegistry = new Set(
      (await deps.beacon.validators("head", pubkeys)).map((v) => v.validator.pubkey.toLowerCase()),
    );
    let unknown = pubkeys.filter((p) => !inRegistry.has(p));
    // The deposit queue (megabytes on mainnet) only for pubkeys the registry does not have yet.
    if (unknown.length) {
      const pending = new Set((await deps.beacon.pendingDeposits("head")).map((d) => d.pubkey.toLowerCase()));
      unknown = unknown.filter((p) => !pending.has(p));
    }
    if (unknown.length) {
      throw new AppError(
        "VALIDATOR_UNKNOWN",
        "The beacon chain knows no validator and no pending deposit for these pubkeys",
        { details: unknown.map((p) => ({ field: `pubkeys`, message: `unknown pubkey ${p}` })) },
      );
    }
  }

  return {
    /** Follows pubkeys the organisation stakes with elsewhere (idempotent); scope rule applies. */
    async register(auth: StakingAuth, pubkeys: string[]) {
      for (const p of pubkeys) assertInScope(auth, "ethereum", p, "validator");
      const unique = [...new Set(pubkeys)];
      const org = auth.organisationId;
      await deps.limit(org);
      const fresh = await repo.notRegistered(org, unique);
      if (fresh.length) {
        // Checked before the insert: concurrent registrations may each pass, by at most 100 pubkeys each.
        if ((await repo.registeredCount(org)) + fresh.length > deps.maxRegistered) {
          throw new AppError(
            "REGISTRATION_LIMIT_REACHED",
            `An organisation may register at most ${deps.maxRegistered} pubkeys`,
          );
        }
        await assertKnown(fresh);
      }
      await repo.register(org, unique);
      // The organisation's rollup gets the pubkeys' indexed days from the worker, never from here
      // (docs/spec.md, our additions): enqueued, then awaited for a moment.
      if (!(await repo.rolledUp(org, unique))) {
        await deps.registrations.add("roll-up", {}, { removeOnComplete: 100, removeOnFail: 100 });
        if (!(await waitUntil(() => repo.rolledUp(org, unique), deps.registerWaitMs ?? 5_000))) {
          throw notIndexedYet("Registered; the worker has not counted the pubkeys yet, retry shortly", 5);
        }
      }
      return { registered: unique };
    },

    async list(organisationId: string, q: ListQuery) {
      const { rows, total } = await repo.listValidators(
        organisationId,
        { pubkeys: q.pubkeys, withdrawalAddresses: q.withdrawal_addresses },
        pageOf(q),
      );
      const results = rows.map((r) => ({
        validator: {
          fee_recipient: r.fee_recipient?.toLowerCase() ?? null,
          network: network as "HOODI" | "MAINNET",
          pubkey: r.pubkey,
          beacon_status: r.beacon_status as never,
          withdrawal_address: r.withdrawal_credentials ? withdrawalAddressOf(r.withdrawal_credentials) : null,
          withdrawal_credentials: r.withdrawal_credentials,
          index: r.validator_index,
          balances: { current_staked: r.balance_gwei ?? "0" },
          lifecycle: {
            status_history: (r.history ?? []).map((h) => ({
              status: h.status as never,
              time: new Date(h.time).toISOString(),
            })),
          },
        },
      }));
      return { results, ...envelope(q, total) };
    },

    async overview(organisationId: string) {
      const c = await chain();
      const epochSeconds = c ? c.slotsPerEpoch * c.secondsPerSlot : 384;
      const lastDay = c ? isoDay(c.genesisTime + c.epoch * epochSeconds) : null;
      const [{ row, activeStake }, state] = await Promise.all([
        repo.overview(organisationId, lastDay),
        indexState(organisationId, c),
      ]);
      const apy = (n: number) =>
        apyPercent(BigInt(row[`r${n}`] ?? 0), BigInt(row[`s${n}`] ?? 0), epochSeconds);
      return {
        network,
        provider: deps.provider,
        total_active_stake: activeStake.toString(),
        total_cl_rewards: row.cl ?? "0",
        total_el_rewards: row.el ?? "0",
        total_mev_rewards: row.mev ?? "0",
        total_priority_fees: row.fees ?? "0",
        apy_7d: apy(7),
        apy_30d: apy(30),
        apy_365d: apy(365),
        apy_unit: "percent_per_year" as const,
        ...state,
      };
    },

    async epochs(organisationId: string, q: EpochQuery) {
      const [c, { indices, pubkeyOf }] = await Promise.all([chain(), orgIndices(organisationId)]);
      if (!c || q.end_epoch > c.epoch) {
        // One epoch is when the indexer next moves its head (a minute before it has read the chain at all).
        const retry = c ? c.slotsPerEpoch * c.secondsPerSlot : 60;
        throw notIndexedYet(`Epochs up to ${c?.epoch ?? "none"} are indexed; end_epoch is beyond`, retry);
      }
      const epochSeconds = c.slotsPerEpoch * c.secondsPerSlot;
      const total = q.end_epoch - q.start_epoch + 1;
      const from = q.start_epoch + (q.page - 1) * q.per_page;
      const to = Math.min(q.end_epoch, from + q.per_page - 1);
      // Whole UTC days inside the range come from the daily rollup, the partial days at its edges from epochs.
      const dayOfEpoch = (e: number) => Math.floor((c.genesisTime + e * epochSeconds) / DAY);
      const firstEpochOfDay = (d: number) => Math.max(0, Math.ceil((d * DAY - c.genesisTime) / epochSeconds));
      let d1 = dayOfEpoch(q.start_epoch);
      if (firstEpochOfDay(d1) !== q.start_epoch) d1++;
      let d2 = dayOfEpoch(q.end_epoch);
      if (firstEpochOfDay(d2 + 1) - 1 !== q.end_epoch) d2--;
      const parts: Parameters<typeof repo.totals>[1] =
        d1 <= d2
          ? {
              days: [isoDay(d1 * DAY), isoDay(d2 * DAY)],
              epochs: [
                [q.start_epoch, firstEpochOfDay(d1) - 1],
                [firstEpochOfDay(d2 + 1), q.end_epoch],
              ],
            }
          : { epochs: [[q.start_epoch, q.end_epoch]] };
      // The page's rows and the range's totals are independent: two pool connections, one wait.
      const [rows, totals] = indices.length
        ? await Promise.all([
            from <= to ? repo.epochRewards(indices, from, to) : [],
            repo.totals(indices, parts),
          ])
        : [[], NO_TOTALS];
      const byEpoch = new Map(rows.map((r) => [r.epoch, r]));
      const interval_summary = [];
      for (let e = from; e <= to; e++) {
        const r = byEpoch.get(e);
        interval_summary.push({
          epoch: e,
          timestamp: new Date((c.genesisTime + e * epochSeconds) * 1000).toISOString(),
          validators: r
            ? r.indices.map((index, i) => ({
                pubkey: pubkeyOf.get(index) ?? "",
                cl_reward: r.cl[i] as string,
                el_reward: r.el[i] as string,
                mev_reward: r.mev[i] as string,
                priority_fees: r.fees[i] as string,
                index,
              }))
            : [],
        });
      }
      return {
        start_epoch: q.start_epoch,
        end_epoch: q.end_epoch,
        ...totalsOf(totals),
        interval_summary,
        ...envelope(q, total),
      };
    },

    async dates(organisationId: string, q: DateQuery) {
      const start = dayUnix(q.start_date);
      const end = dayUnix(q.end_date);
      const days = Number(q.interval.replace("d", ""));
      const total = Math.floor((end - start) / DAY / days) + 1;
      const firstBucket = (q.page - 1) * q.per_page;
      const lastBucket = Math.min(total - 1, firstBucket + q.per_page - 1);
      const [{ indices, pubkeyOf }, state] = await Promise.all([
        orgIndices(organisationId),
        chain().then((c) => indexState(organisationId, c)),
      ]);
      const pageEnd = isoDay(Math.min(end, start + ((lastBucket + 1) * days - 1) * DAY));
      const [rows, totals] = indices.length
        ? await Promise.all([
            firstBucket <= lastBucket ? repo.dayBuckets(indices, q.start_date, pageEnd, days) : [],
            repo.totals(indices, { days: [q.start_date, q.end_date] }),
          ])
        : [[], NO_TOTALS];
      const byBucket = groupBy(rows, (r) => r.bucket);
      const interval_summary = [];
      for (let b = firstBucket; b <= lastBucket; b++) {
        interval_summary.push({
          date: isoDay(start + b * days * DAY),
          validators: (byBucket.get(b) ?? []).map((r) => reward(r, pubkeyOf)),
        });
      }
      return {
        start_date: q.start_date,
        end_date: q.end_date,
        ...totalsOf(totals),
        interval_summary,
        ...state,
        ...envelope(q, total),
      };
    },

    async transactions(organisationId: string, q: TransactionsQuery) {
      const { rows, total } = await repo.transactions(organisationId, q.pubkeys, pageOf(q));
      const results = rows.map((t) => ({
        transactionHash: String(t.transaction_hash),
        blockNumber: Number(t.block_number),
        blockTimestamp: Number(t.block_timestamp),
        data: String(t.data),
        fee: String(t.fee_gwei),
        from: String(t.from),
        to: String(t.to),
        layer: t.layer as "EXECUTION_LAYER" | "CONSENSUS_LAYER",
        type: t.type as "DEPOSIT" | "PARTIAL_EXIT" | "FULL_WITHDRAWAL" | "CONSOLIDATE" | "SWITCH",
        pubkey: String(t.pubkey),
        sourcePubkey: (t.source_pubkey as string | null) ?? null,
        targetPubkey: (t.target_pubkey as string | null) ?? null,
        amount: String(t.amount_gwei),
        withdrawalAddress: (t.withdrawal_address as string | null) ?? null,
        withdrawalCredentials: (t.withdrawal_credentials as string | null) ?? null,
      }));
      return { results, ...envelope(q, total) };
    },
  };
}

export type BeaconDataService = ReturnType<typeof createBeaconDataService>;
