/**
 * The end of `npm run bench:gateway`: settles everything the gateways reserved, as the worker would, then
 * checks the books (nothing in flight, nothing reserved, `ledger check` clean) and the reservations table's
 * size per row.
 */
import { WORKER_NODE_FLAGS } from "@stake/control-plane/build";
import { checkParty, readBalance, runSettlementPass, scanRecords } from "@stake/control-plane/operator";
import type { Db } from "@stake/db/client";
import type { Redis } from "@stake/db/redis/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import { sql } from "drizzle-orm";

const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "-");

/** The report's lines, and whether the books are exact. `peak`: the gateway's best c100 round, req/s (0: none). */
export async function settleAndCheck(
  deps: { db: Db; redis: Redis; keys: RedisKeys },
  partyId: string,
  peak: number,
): Promise<{ lines: string[]; ok: boolean }> {
  const { db, redis, keys } = deps;
  const lines: string[] = [];
  const settleStarted = process.hrtime.bigint();
  let settledNow = 0;
  for (let i = 0; i < 100; i++) {
    const pass = await runSettlementPass(deps, { reapAfterMs: 60_000, ttlSeconds: 172_800 });
    settledNow += pass.settled;
    if (!pass.parties || (await readBalance(redis, keys, partyId)).reserved === 0n) break;
  }
  const settleMs = Number(process.hrtime.bigint() - settleStarted) / 1e6;
  const settleRate = (settledNow / settleMs) * 1000;
  const { reserved } = await readBalance(redis, keys, partyId);
  const differences = await checkParty(deps, partyId);
  const inFlight = (await scanRecords(redis, keys, partyId)).filter(
    (r) => r.status === "request_in_flight",
  ).length;
  const [table] = await db.execute<{ bytes: string; rows: string }>(
    // Partitioned by month (migration 0018): the parent holds no rows, its partitions do.
    sql`select (select sum(pg_total_relation_size(relid)) from pg_partition_tree('reservations'))::text as bytes, (select count(*) from reservations)::text as rows`,
  );
  const ok = inFlight === 0 && reserved === 0n && differences.length === 0;
  const asWorker = WORKER_NODE_FLAGS.every((flag) => process.execArgv.includes(flag));
  lines.push(
    `\nsettlement: ${settledNow} reservations in ${f(settleMs, 0)} ms = ${f(settleRate, 0)}/s (drain, charge, one debit per batch)${asWorker ? "" : `; not with the worker's V8 flags (${WORKER_NODE_FLAGS.join(" ")}): run it as npm run bench:gateway`}`,
  );
  if (peak)
    lines.push(
      `settlement / gateway c100 peak (best round ${f(peak, 0)} req/s): ${f(settleRate / peak, 2)} (target ≥ 2.0)`,
    );
  lines.push(
    `reservations table with its indexes: ${f(Number(table?.bytes) / Number(table?.rows), 0)} bytes per reservation (${table?.rows} rows)`,
    `books: ${inFlight} in flight, reserved ${reserved} (must be 0), ledger check ${differences.length ? differences.map((d) => `${d.item}: ${d.detail}`).join("; ") : "clean"}: ${ok ? "OK" : "MISMATCH"}`,
  );
  return { lines, ok };
}
