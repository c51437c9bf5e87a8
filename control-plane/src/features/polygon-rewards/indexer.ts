import type { Address } from "viem";
import { refusingInsaneNodes } from "../../background-job.ts";
import { NodeAnswerRefused } from "../../http/upstream.ts";
import type { Logger } from "../../log.ts";
import { type ChainGuardOptions, createChainGuard } from "../../platform/chain-identity/guard.ts";
import { APR_WINDOWS, windowSlackS } from "./apr.ts";
import { blockAtOrBefore, LOG_RANGE } from "./blocks.ts";
import { l1Identity, type PolygonL1, type SnapshotDepth } from "./client.ts";
import type { PolygonIndexerRepo } from "./indexer-repo.ts";
import type { ValidatorShareResolver } from "./validator.ts";

const DAY_S = 86_400n;
/** After the node refused a past block's state (a full node), backfill is not tried again for this long. */
const BACKFILL_RETRY_MS = 3_600_000;

/**
 * The APR history of the operator's ValidatorShare (docs/chains/polygon-sui.md §1.5, "without an archive
 * node"): one pass stores a snapshot at every block holding a checkpoint (`NewHeaderBlock` of RootChain)
 * since the last pass, one at the head when the newest is older than `snapshotIntervalS`, then, for each
 * APR window whose start has no snapshot, one at the block of that time found by binary search, read with
 * `eth_call` at that block, which only an archive node can answer. Snapshots live in Postgres, so a
 * restarted worker resumes where it stopped.
 */
export function createPolygonSnapshotter(deps: {
  l1: PolygonL1;
  repo: PolygonIndexerRepo;
  resolver: ValidatorShareResolver;
  rootChain: Address;
  snapshotIntervalS: number;
  /** How far behind the head snapshots are taken (POLYGON_SNAPSHOT_DEPTH). */
  snapshotDepth: SnapshotDepth;
  /** The chain check of every pass (docs/architecture.md §13, "Chain identity"). */
  chain: ChainGuardOptions;
  logger: Logger;
}) {
  const { l1, repo } = deps;
  let backfillPausedUntil = 0;
  const verifyChain = createChainGuard({
    ...deps.chain,
    area: "polygon-rewards",
    identify: (recorded) => l1Identity(l1, recorded, deps.snapshotDepth),
    forget: () => {
      backfillPausedUntil = 0;
      deps.resolver.forget();
    },
  });

  /**
   * The ValidatorShare at `block`, or null when the node answers its head but not that block's state (a full
   * node keeps ~128 states): a worker back after a long stop skips the checkpoints it can no longer read
   * instead of stopping at the first. A node that is down or slow fails the pass.
   */
  async function stateAt(vs: Address, block: bigint) {
    try {
      return await l1.shareState(vs, block);
    } catch (err) {
      if ((err as { code?: string }).code === "UPSTREAM_TIMEOUT" || err instanceof NodeAnswerRefused)
        throw err;
      await l1.head();
      deps.logger.warn(
        { err, block: block.toString() },
        "L1 node has no state at this block (not an archive node?)",
      );
      return null;
    }
  }

  async function backfill(vs: Address, head: bigint): Promise<number> {
    if (Date.now() < backfillPausedUntil) return 0;
    const newest = await repo.latest(vs);
    if (!newest) return 0;
    let stored = 0;
    for (const days of APR_WINDOWS) {
      const target = newest.timestamp - BigInt(days) * DAY_S;
      const earliest = target - windowSlackS(days);
      if (await repo.newestBetween(vs, earliest, target)) continue;
      const block = await blockAtOrBefore(l1, target, { hi: head });
      if (block === null) continue;
      const state = await stateAt(vs, block);
      if (!state) {
        // The windows fill from the worker's own snapshots instead.
        backfillPausedUntil = Date.now() + BACKFILL_RETRY_MS;
        break;
      }
      // A chain younger than the window, or a hole in its blocks: nothing to store for this window.
      if (state.timestamp < earliest) continue;
      await repo.saveSnapshot(vs, state, "backfill");
      stored++;
    }
    return stored;
  }

  const steps = {
    async runOnce(): Promise<{
      checkpoints: number;
      interval: boolean;
      backfilled: number;
      head: string;
      refused?: "CHAIN_MISMATCH";
    }> {
      if (!(await verifyChain()))
        return { checkpoints: 0, interval: false, backfilled: 0, head: "", refused: "CHAIN_MISMATCH" };
      const { address: vs } = await deps.resolver.get();
      // Snapshots only of settled blocks: a re-org above them would otherwise leave rows of a chain that is gone.
      const head = await l1.head(deps.snapshotDepth);
      const cursor = await repo.logCursor(deps.rootChain);
      // A settled block does not become unsettled: a node whose settled head is behind what was read is
      // not believed (a lie, or another chain), and the pass stops until it is back.
      if (cursor !== undefined && head.number < cursor)
        throw new NodeAnswerRefused(
          `Ethereum L1 node answered settled head ${head.number}, behind block ${cursor} already read`,
        );
      let checkpoints = 0;
      for (let from = cursor === undefined ? head.number : cursor + 1n; from <= head.number; ) {
        const to = from + LOG_RANGE - 1n < head.number ? from + LOG_RANGE - 1n : head.number;
        for (const block of await l1.checkpointBlocks(deps.rootChain, from, to)) {
          const state = await stateAt(vs, block);
          if (state) {
            await repo.saveSnapshot(vs, state, "checkpoint");
            checkpoints++;
          }
        }
        await repo.setLogCursor(deps.rootChain, to);
        from = to + 1n;
      }
      const latest = await repo.latest(vs);
      const due =
        !latest ||
        (latest.block < head.number && latest.timestamp + BigInt(deps.snapshotIntervalS) <= head.timestamp);
      if (due) await repo.saveSnapshot(vs, await l1.shareState(vs, head.number), "interval");
      const backfilled = await backfill(vs, head.number);
      return { checkpoints, interval: due, backfilled, head: head.number.toString() };
    },
  };

  return { verifyChain, runOnce: () => refusingInsaneNodes(deps.logger, steps.runOnce) };
}

export type PolygonSnapshotter = ReturnType<typeof createPolygonSnapshotter>;
