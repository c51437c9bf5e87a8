import type { PolygonL1 } from "./client.ts";

/**
 * The last block whose timestamp is at or before `ts` (Unix seconds), by binary search over block headers
 * within [lo, hi] (`lo` at or before `ts` when given: a bracket from a stored snapshot saves round trips);
 * null when even block `lo` is later.
 */
export async function blockAtOrBefore(
  l1: Pick<PolygonL1, "blockTime">,
  ts: bigint,
  range: { lo?: bigint; hi: bigint },
): Promise<bigint | null> {
  let lo = range.lo ?? 0n;
  let hi = range.hi;
  if ((await l1.blockTime(lo)) > ts) return null;
  while (lo < hi) {
    const mid = (lo + hi + 1n) / 2n;
    if ((await l1.blockTime(mid)) <= ts) lo = mid;
    else hi = mid - 1n;
  }
  return lo;
}

/** Most blocks one `eth_getLogs` asks for (public nodes refuse wide ranges). */
export const LOG_RANGE = 5_000n;
