import type { Db } from "@stake/db/client";
import { AppError } from "../../errors.ts";
import type { Logger } from "../../log.ts";
import { CHAIN_AREAS, type ChainArea, type ChainIdentity, describeIdentity, sameChain } from "./areas.ts";
import { chainIdentityRepo as repo } from "./repo.ts";

/** What happens when an area's node serves another chain than the one indexed (CHAIN_RESET_POLICY). */
export type ChainResetPolicy = "refuse" | "reindex";

/**
 * Deletes what `area` indexed and its recorded identity in one transaction under the area's lock (a write
 * of its follower never interleaves): the follower's next pass records the chain its node serves then and
 * indexes it from the start (or `node` is recorded at once). Organisations' data stays (`CHAIN_AREAS`).
 */
export async function reindexArea(db: Db, area: ChainArea, node?: ChainIdentity): Promise<void> {
  await db.transaction(async (tx) => {
    await repo.lockArea(tx, area);
    await repo.deleteIndexed(tx, area);
    if (node) await repo.record(tx, area, node);
  });
}

/** What `reindexArea` would delete: rows per table, and what stays. */
export async function reindexPlan(db: Db, area: ChainArea) {
  return {
    area,
    recorded: (await repo.read(db, area))?.identity ?? null,
    deletes: await repo.countIndexed(db, area),
    keeps: CHAIN_AREAS[area].keeps,
  };
}

export interface ChainGuardDeps {
  db: Db;
  area: ChainArea;
  policy: ChainResetPolicy;
  logger: Logger;
  /**
   * The chain the node serves now. Given the recorded identity, so that an anchored one (an EVM block's
   * hash) is read at the recorded anchor; given null, it picks its anchor.
   */
  identify(recorded: ChainIdentity | null): Promise<ChainIdentity>;
  /** Forgets what the follower keeps in memory of a chain (its spec, states, resolved contracts). */
  forget(): void;
  /**
   * The identity implied by data stored before identities were recorded (the beacon cursor's genesis time),
   * or null: a database upgraded under a switched node is caught too.
   */
  legacy?(): Promise<ChainIdentity | null>;
}

/** What the composition root gives a follower to build its guard with. */
export type ChainGuardOptions = Pick<ChainGuardDeps, "db" | "policy" | "logger">;

/**
 * The chain check every follower runs when it starts and before every pass (docs/architecture.md §13,
 * "Chain identity"). Returns true when the pass may write: the node serves the indexed chain, or the area
 * was just emptied to index the node's (CHAIN_RESET_POLICY=reindex, never on mainnet). Otherwise it records
 * what the node serves (the area's data endpoints then answer 503 CHAIN_MISMATCH), logs one error naming
 * both identities, and returns false: nothing is written until the node is back or an operator re-indexes.
 */
export function createChainGuard(deps: ChainGuardDeps) {
  const { db, area, logger } = deps;
  // The check at start and a pass's may overlap: they share one look, so a chain is recorded or reset once.
  let running: Promise<boolean> | undefined;
  return function verifyChain(): Promise<boolean> {
    running ??= verify().finally(() => {
      running = undefined;
    });
    return running;
  };
  async function verify(): Promise<boolean> {
    const stored = await repo.read(db, area);
    const legacy = stored ? null : ((await deps.legacy?.()) ?? null);
    const row = stored ?? (legacy && { identity: legacy, nodeIdentity: null });
    const node = await deps.identify(stored?.identity ?? null);
    if (!row) {
      await repo.record(db, area, node);
      deps.forget();
      logger.info({ area, identity: node }, "chain identity recorded");
      return true;
    }
    if (sameChain(row.identity, node)) {
      if (!stored) await repo.record(db, area, node);
      else if (row.nodeIdentity) {
        await repo.markMismatch(db, area, null);
        logger.info({ area, identity: node }, "the node serves the indexed chain again");
      }
      return true;
    }
    const both = `indexed ${describeIdentity(row.identity)}; node ${describeIdentity(node)}`;
    if (deps.policy === "reindex") {
      await reindexArea(db, area, node);
      deps.forget();
      logger.warn(
        { area, indexed: row.identity, node },
        `${area}: node serves another chain (${both}); its indexed data deleted, re-indexing from the node (CHAIN_RESET_POLICY=reindex)`,
      );
      return true;
    }
    if (!row.nodeIdentity || !sameChain(row.nodeIdentity, node)) {
      if (!stored) await repo.record(db, area, row.identity);
      await repo.markMismatch(db, area, node);
      logger.error(
        { area, indexed: row.identity, node },
        `${area}: node serves another chain (${both}); not writing, data endpoints answer 503 CHAIN_MISMATCH until it is back or \`npm run operator -- chain reindex ${area}\``,
      );
    }
    return false;
  }
}

/** How long the API trusts its last look at the node's identity. */
const SERVING_CHECK_MS = 5_000;
/** How long a read waits for that look. */
const SERVING_LOOK_MS = 1_000;

/**
 * The API side: an area's data endpoints call `assertServing()` before reading what the follower stored,
 * so nothing indexed from one chain is served as another's. Two checks: the worker's verdict in
 * `chain_identities`, and, with `identify`, the API's own look at the node (at most every 5 s), which
 * closes the gap between a node switching and the worker's next pass (an API started before the worker
 * on a database of a chain that is gone). A node that does not answer leaves the worker's verdict.
 */
export function createChainServing(deps: {
  db: Db;
  area: ChainArea;
  identify?: (recorded: ChainIdentity) => Promise<ChainIdentity>;
}) {
  let seen: { recorded: string; node: ChainIdentity; at: number } | undefined;
  async function nodeNow(recorded: ChainIdentity): Promise<ChainIdentity | null> {
    if (!deps.identify) return null;
    const key = JSON.stringify(recorded);
    if (seen?.recorded === key && Date.now() - seen.at < SERVING_CHECK_MS) return seen.node;
    // A slow node does not hold a read up for its whole timeout: past this bound the worker's verdict stands.
    const late = new Promise<null>((resolve) => setTimeout(resolve, SERVING_LOOK_MS, null).unref());
    const look = deps.identify(recorded).then(
      (node) => {
        seen = { recorded: key, node, at: Date.now() };
        return node;
      },
      () => null,
    );
    return Promise.race([look, late]);
  }
  /** Returns when the served chain's identity was recorded (null: none yet), for caches of its data. */
  return async function assertServing(): Promise<number | null> {
    const row = await repo.read(deps.db, deps.area);
    if (!row) return null;
    let node = row.nodeIdentity;
    if (!node) {
      const now = await nodeNow(row.identity);
      if (!now || sameChain(row.identity, now)) return row.recordedAt.getTime();
      node = now;
    }
    throw new AppError(
      "CHAIN_MISMATCH",
      `The ${deps.area} node now serves another chain (indexed: ${describeIdentity(row.identity)}; node: ${describeIdentity(node)}); its indexed data is withheld until the area is re-indexed`,
      { headers: { "retry-after": "60" } },
    );
  };
}

export type AssertServing = ReturnType<typeof createChainServing>;

/**
 * For an area whose API itself stores what the node said (Solana's rewards cache, filled on request): the
 * chain check runs in the API before every read of the stored data (concurrent requests share one look),
 * not at most every 5 s as `createChainServing`'s: a request in that window would serve the old chain's
 * cached epochs as the new one's and cache the new chain's answers under the old chain's identity. Then as
 * `createChainServing`, a node serving another chain is 503 CHAIN_MISMATCH (or, with
 * CHAIN_RESET_POLICY=reindex, the cache is emptied and filled from the node's chain).
 */
export function createReadThroughGuard(deps: ChainGuardDeps) {
  const verifyChain = createChainGuard(deps);
  const served = createChainServing({ db: deps.db, area: deps.area });
  return async function assertServing(): Promise<number | null> {
    await verifyChain();
    return served();
  };
}
