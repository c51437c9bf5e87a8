import type { Db, DbOrTx } from "@stake/db/client";
import { type ChainFollower, refusingInsaneNodes } from "../../background-job.ts";
import { assertFitsBigintColumns } from "../../chains/node-values.ts";
import { NodeAnswerRefused } from "../../http/upstream.ts";
import type { Logger } from "../../log.ts";
import { type ChainGuardOptions, createChainGuard } from "../../platform/chain-identity/guard.ts";
import { type BeaconApi, type ChainSpec, type ExecutionApi, OptimisticAnswer } from "./client.ts";
import type { EpochData, TrackedValidator } from "./epoch-rewards.ts";
import type { IndexerRepo } from "./indexer-repo.ts";
import { createStateQueues, readEpoch } from "./read-epoch.ts";

export interface IndexerDeps {
  /** Opens the step's transactions: the unit of work is the indexer's, the repository's writes take it. */
  db: Db;
  beacon: BeaconApi;
  execution: ExecutionApi;
  repo: IndexerRepo;
  depositContract: string;
  maxEpochsPerStep: number;
  startEpoch: number | undefined;
  /** How far back (epochs up to the cursor) a pubkey registered later gets its rows read; 0: no backfill. */
  backfillEpochs: number;
  /** Most earlier epochs one step reads for every organisation's registrations together. */
  backfillEpochsPerStep: number;
  /** The chain check of every pass (docs/architecture.md §13, "Chain identity"). */
  chain: ChainGuardOptions;
  logger: Logger;
}

/**
 * One idempotent indexer step: (0) registrations since the last step rolled up (`rollUpRegistrations`);
 * (1) re-org check — the newest stored slot root after the finalized
 * checkpoint is compared with the node's; if the node now has another block there, the indexer walks back to
 * the last slot that still agrees and deletes everything from that slot's epoch on; (2) every complete epoch
 * after the cursor (its last slot's state exists) is read and written with the cursor in one transaction;
 * (3) registered pubkeys first tracked after the index's start get earlier epochs read for them (bounded,
 * see `backfill`); (4) rows before the finalized checkpoint are marked final. A crash anywhere leaves the
 * cursor at the last written epoch, and the next step redoes the rest with the same inputs: no gap, no
 * double count.
 */
export function createIndexer(deps: IndexerDeps) {
  let spec: ChainSpec | undefined;
  const { repo } = deps;
  const beacon = deps.beacon.verified;
  // Kept across steps: the next step's first epoch starts from the state this one ended on.
  const queues = createStateQueues(beacon);
  const reads = (s: ChainSpec) => ({
    beacon,
    execution: deps.execution,
    spec: s,
    depositContract: deps.depositContract,
    queues,
  });
  /**
   * Reads an epoch, or null while the node answers optimistically (its execution client has not verified
   * the payloads yet): nothing is written from such answers, the next step asks again. Amounts outside a
   * `bigint` column are refused before any write.
   */
  async function read(s: ChainSpec, epoch: number, tracked: TrackedValidator[]) {
    try {
      const { data, unserved } = await readEpoch(reads(s), epoch, tracked);
      assertFitsBigintColumns(data, { node: "Beacon and execution node", what: `epoch ${epoch}` });
      noteBreakdown(epoch, data, unserved);
      return data;
    } catch (err) {
      if (!(err instanceof OptimisticAnswer)) throw err;
      deps.logger.warn({ epoch, reason: err.message }, "beacon node is optimistic: epoch not indexed yet");
      return null;
    }
  }
  // Whether the last epoch read had its breakdown: a node that never serves the rewards endpoints is said
  // once, not every epoch.
  let served: boolean | undefined;
  /** Says when the node stops or starts serving the breakdown, and every epoch where it disagrees. */
  function noteBreakdown(epoch: number, data: EpochData, unserved: string | null) {
    if (unserved !== null && served !== false)
      deps.logger.warn(
        { epoch, unserved },
        "beacon node does not serve its rewards endpoints: CL rewards indexed without their breakdown",
      );
    if (unserved === null && served === false)
      deps.logger.info({ epoch }, "beacon node serves CL reward breakdowns again");
    served = unserved === null;
    const off = data.rewards.filter((r) => r.breakdown && r.breakdown.unexplained !== 0n);
    if (off.length)
      deps.logger.warn(
        { epoch, validators: off.slice(0, 10).map((r) => r.validatorIndex), count: off.length },
        "beacon node's rewards endpoints disagree with the balance changes: the difference is stored as unexplained",
      );
  }
  /** The step's writes each in one transaction under the indexer's advisory lock (indexer-repo.ts). */
  const locked = <T>(write: (tx: DbOrTx) => Promise<T>) =>
    deps.db.transaction(async (tx) => {
      await repo.lockIndex(tx);
      return write(tx);
    });
  const rollUpRegistrations = () => locked((tx) => repo.rollUpRegistrations(tx));
  const verifyChain = createChainGuard({
    ...deps.chain,
    area: "beacon-data",
    identify: () => deps.beacon.chainIdentity(),
    forget: () => {
      spec = undefined;
      queues.clear();
    },
    // A cursor written before identities were recorded keeps its chain's genesis time.
    legacy: async () => {
      const cursor = await repo.cursor();
      return cursor && { genesis_time: String(cursor.genesisTime) };
    },
  });

  async function checkReorg(s: ChainSpec): Promise<void> {
    const stored = await deps.repo.unfinalizedSlots();
    let firstBad: number | undefined;
    for (const row of stored) {
      if ((await deps.beacon.blockRoot(row.slot)) === row.root) break;
      firstBad = row.slot;
    }
    if (firstBad === undefined) return;
    const epoch = Math.floor(firstBad / s.slotsPerEpoch);
    deps.logger.warn({ slot: firstBad, epoch }, "beacon re-org: replacing indexed epochs");
    queues.clear();
    await locked((tx) => repo.rollback(tx, epoch, s));
  }

  /**
   * Up to `backfillEpochsPerStep` earlier epochs (one budget for every organisation) for registered pubkeys whose rows start after the backfill
   * floor, newest first: each pass reads the epoch just before the latest start, for the pubkeys starting
   * there, so the pubkeys of one registration are read together and no epoch is read twice for a pubkey.
   */
  async function backfill(s: ChainSpec, finalizedEpoch: number): Promise<number[]> {
    const done: number[] = [];
    while (deps.backfillEpochs > 0 && done.length < deps.backfillEpochsPerStep) {
      const starts = await deps.repo.backfillStarts(deps.backfillEpochs);
      if (!starts.size) break;
      const epoch = [...starts.values()].reduce((a, b) => Math.max(a, b)) - 1;
      // As if first seen now: the earliest sighting of each status is kept.
      const tracked = (await deps.repo.tracked())
        .filter((t) => starts.get(t.pubkey) === epoch + 1)
        .map((t) => ({ ...t, lifecycle: null }));
      const data = await read(s, epoch, tracked);
      if (!data || !(await locked((tx) => repo.writeBackfill(tx, data, s, finalizedEpoch)))) break;
      done.push(epoch);
    }
    if (done.length) deps.logger.info({ epochs: done }, "beacon epochs backfilled for registered pubkeys");
    return done;
  }

  /**
   * The node's finality is believed only within the chain's rules: the finalized epoch is not beyond the
   * head's, and never behind the one already indexed (finality does not move back). One lie otherwise marks
   * unfinal rows final and turns re-org repair off for good.
   */
  function checkFinality(
    s: ChainSpec,
    head: number,
    finalizedEpoch: number,
    cursor: { epoch: number; finalizedEpoch: number } | null,
  ) {
    const headEpoch = Math.floor(head / s.slotsPerEpoch);
    const indexed = cursor?.finalizedEpoch;
    if (finalizedEpoch > headEpoch)
      throw new NodeAnswerRefused(
        `Beacon node answered finalized epoch ${finalizedEpoch}, beyond its head epoch ${headEpoch}`,
      );
    if (indexed !== undefined && finalizedEpoch < indexed)
      throw new NodeAnswerRefused(
        `Beacon node answered finalized epoch ${finalizedEpoch}, behind epoch ${indexed} it finalized before`,
      );
    // A node behind what is indexed (a failover to a lagging node) is not followed: the index would
    // otherwise claim epochs the node does not have.
    if (cursor && cursor.epoch > headEpoch)
      throw new NodeAnswerRefused(
        `Beacon node answered head epoch ${headEpoch}, behind epoch ${cursor.epoch} already indexed`,
      );
  }

  const steps = {
    rollUpRegistrations,
    /** One step; returns the epochs it wrote. */
    verifyChain,
    async runOnce(): Promise<number[]> {
      if (!(await verifyChain())) return [];
      await rollUpRegistrations();
      spec ??= await deps.beacon.spec();
      const s = spec;
      const [head, nodeFinalized] = await Promise.all([deps.beacon.headSlot(), deps.beacon.finalizedEpoch()]);
      let cursor = await deps.repo.cursor();
      // An optimistic node's finality is not taken: finality stays where it was.
      const finalizedEpoch = nodeFinalized ?? cursor?.finalizedEpoch;
      if (finalizedEpoch === undefined) {
        deps.logger.warn("beacon node is optimistic: waiting for a verified finalized checkpoint to start");
        return [];
      }
      checkFinality(s, head, finalizedEpoch, cursor);
      if (!cursor) {
        await deps.repo.initCursor((deps.startEpoch ?? finalizedEpoch) - 1, s, finalizedEpoch);
        cursor = await deps.repo.cursor();
      } else await checkReorg(s);
      const written: number[] = [];
      let epoch = ((await deps.repo.cursor())?.epoch ?? -1) + 1;
      while (written.length < deps.maxEpochsPerStep && (epoch + 1) * s.slotsPerEpoch - 1 <= head) {
        const tracked = await deps.repo.tracked();
        const data = await read(s, epoch, tracked);
        if (!data || !(await locked((tx) => repo.writeEpoch(tx, data, s, epoch - 1, finalizedEpoch)))) break;
        written.push(epoch);
        epoch++;
      }
      if (written.length) deps.logger.info({ epochs: written, finalizedEpoch }, "beacon epochs indexed");
      await backfill(s, finalizedEpoch);
      await deps.db.transaction((tx) => repo.finalize(tx, finalizedEpoch, s));
      return written;
    },
  };

  return { ...steps, runOnce: () => refusingInsaneNodes(deps.logger, steps.runOnce) };
}

export type Indexer = ReturnType<typeof createIndexer> & ChainFollower<number[]>;
