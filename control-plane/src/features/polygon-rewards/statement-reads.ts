import type { Address } from "viem";
import { blockAtOrBefore, LOG_RANGE } from "./blocks.ts";
import type { PolygonL1, SnapshotDepth } from "./client.ts";
import type { PolygonRepo } from "./repo.ts";
import type { ValidatorShareResolver } from "./validator.ts";

const DAY_S = 86_400n;
const dayOf = (s: bigint) => new Date(Number(s) * 1000).toISOString().slice(0, 10);

/** What a delegator earned and was paid on one UTC day, wei of POL. */
export interface PolygonDay {
  date: string;
  earned: bigint;
  withdrawn: bigint;
}

/**
 * The statements' Polygon reads (docs/architecture.md §12): a delegator's days with the operator's
 * ValidatorShare, from the contract's own accounting at each UTC midnight. With L(t) =
 * `getLiquidRewards(delegator)` in the last block before t (what `POST /api/pending-rewards` answers at
 * that moment), a day earned L(end) − L(start) + what left the liquid rewards during it: rewards paid out
 * (claims, the claim a new delegation makes, a restake's change: its `withdrawn`) and rewards a restake
 * turned into stake. Past days need an archive node (state at old blocks), as the APR backfill does.
 * No scope check: the caller passes only its organisation's delegators.
 */
export function createPolygonStatementReads(deps: {
  l1: PolygonL1;
  repo: PolygonRepo;
  resolver: ValidatorShareResolver;
  depth: SnapshotDepth;
  assertServing: () => Promise<unknown>;
}) {
  const { l1 } = deps;
  /** Midnight blocks a day of blocks below the head, by ValidatorShare and time: they do not move any more. */
  const settled = new Map<string, bigint | null>();

  /** The last block before each midnight of [start, end] that the head has passed; a snapshot brackets it. */
  async function boundaries(
    vs: Address,
    start: bigint,
    end: bigint,
    head: { number: bigint; timestamp: bigint },
  ) {
    const out: { t: bigint; block: bigint | null }[] = [];
    let lo: bigint | undefined;
    for (let t = start; t <= end && t <= head.timestamp; t += DAY_S) {
      const key = `${vs}:${t}`;
      let block = settled.get(key);
      if (block === undefined) {
        const snap = await deps.repo.newestBetween(vs, t - 2n * DAY_S, t - 1n);
        const from = snap && (lo === undefined || snap.block > lo) ? snap.block : lo;
        block = await blockAtOrBefore(l1, t - 1n, {
          ...(from === undefined ? {} : { lo: from }),
          hi: head.number,
        });
        if (t + DAY_S <= head.timestamp) settled.set(key, block);
      }
      out.push({ t, block });
      if (block !== null) lo = block;
    }
    // The day in progress ends at the head for now.
    if (out.length && end > head.timestamp) out.push({ t: head.timestamp + 1n, block: head.number });
    return out;
  }

  return {
    /** The days of [start, end) (Unix seconds, midnights) that have begun, with anything earned or paid. */
    async days(delegator: Address, start: bigint, end: bigint): Promise<PolygonDay[]> {
      await deps.assertServing();
      const { address: vs, validatorId } = await deps.resolver.get();
      const head = await l1.head(deps.depth);
      const marks = await boundaries(vs, start, end, head);
      const values = await Promise.all(
        marks.map((m) => (m.block === null ? 0n : l1.liquidRewards(vs, delegator, m.block))),
      );
      const first = marks[0]?.block ?? null;
      const last = marks.at(-1)?.block ?? null;
      const moves = [];
      if (last !== null) {
        for (let from = first === null ? 0n : first + 1n; from <= last; from += LOG_RANGE) {
          const to = from + LOG_RANGE - 1n < last ? from + LOG_RANGE - 1n : last;
          moves.push(...(await l1.rewardMoves(validatorId, delegator, from, to)));
        }
      }
      const out: PolygonDay[] = [];
      for (let i = 1; i < marks.length; i++) {
        const [a, b] = [marks[i - 1], marks[i]] as [(typeof marks)[number], (typeof marks)[number]];
        const inDay = moves.filter(
          (m) => (a.block === null || m.block > a.block) && b.block !== null && m.block <= b.block,
        );
        const paid = inDay.reduce((s, m) => s + m.paid, 0n);
        const restaked = inDay.reduce((s, m) => s + m.restaked, 0n);
        const earned = (values[i] ?? 0n) - (values[i - 1] ?? 0n) + paid + restaked;
        if (earned !== 0n || paid !== 0n) out.push({ date: dayOf(a.t), earned, withdrawn: paid });
      }
      return out;
    },

    /** True once the settled head is past `end` (Unix seconds): no block of the month can change. */
    async settledPast(end: bigint) {
      return (await l1.head(deps.depth)).timestamp >= end;
    },
  };
}

export type PolygonStatementReads = ReturnType<typeof createPolygonStatementReads>;
