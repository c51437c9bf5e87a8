import { readFileSync } from "node:fs";
import { availableParallelism, loadavg } from "node:os";
import { dirtyCount, markDirty } from "@stake/db/redis/settle-dirty";
import { sql } from "drizzle-orm";
import { COST, startStack } from "../faults/stack.ts";
import { eventually } from "../helpers/eventually.ts";
import { servedReservations } from "../helpers/reservations.ts";

/**
 * `npm run bench:settlement`: settlement throughput with 1 and with 3 worker processes, side by
 * side. Each run gets a fresh deployment (tests/faults/stack.ts: its own Postgres and Redis), parties with
 * `BENCH_RESERVATIONS` served requests made by the gateway's ledger scripts, and real workers
 * (control-plane/src/worker.ts, settlement only). The workers start on an empty dirty set and the requests
 * are made with their dirty marks held aside, so the clock runs from the moment every party is marked
 * until Postgres holds every reservation settled: start-up and generation are not in it. Prints
 * reservations/s, the CPU per 1,000 of the workers, of the Postgres backends serving them and of Redis, and
 * how busy the machine's cores were meanwhile, which is what bounds the ratio (they all share the cores).
 */
const TOTAL = Number(process.env.BENCH_RESERVATIONS ?? 50_000);
const PARTIES = Number(process.env.BENCH_PARTIES ?? 50);
const COUNTS = (process.env.BENCH_WORKERS ?? "1,3").split(",").map(Number);
const PER_PARTY = Math.ceil(TOTAL / PARTIES);

/** Busy and total jiffies of every core together (/proc/stat's first line). */
function cpuTimes() {
  const fields = (readFileSync("/proc/stat", "utf8").split("\n")[0] as string).trim().split(/\s+/).slice(1);
  const [user, nice, system, idle, iowait, irq, softirq, steal] = fields.map(Number) as number[];
  const busy = (user ?? 0) + (nice ?? 0) + (system ?? 0) + (irq ?? 0) + (softirq ?? 0) + (steal ?? 0);
  return { busy, total: busy + (idle ?? 0) + (iowait ?? 0) };
}

/** CPU ms a process has used (utime + stime, at the usual 100 ticks a second); 0 once it is gone. */
function processCpuMs(pid: number): number {
  let stat: string;
  try {
    stat = readFileSync(`/proc/${pid}/stat`, "utf8");
  } catch {
    return 0;
  }
  const fields = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
  return (Number(fields[11]) + Number(fields[12])) * 10;
}

/** CPU ms of each process, keyed by pid. */
const cpuOf = (pids: number[]) => new Map(pids.map((pid) => [pid, processCpuMs(pid)]));
/** CPU ms the processes used since `before` (a process absent then counts from its start). */
const cpuSince = (before: Map<number, number>, pids: number[]) =>
  pids.reduce((sum, pid) => sum + processCpuMs(pid) - (before.get(pid) ?? 0), 0);

async function run(workerCount: number) {
  const s = await startStack();
  try {
    await s.seedProvider();
    const partyIds = (
      await Promise.all(Array.from({ length: PARTIES }, () => s.operator.openAccount({ coins: "100000" })))
    ).map((a) => a.partyId as string);
    const env = { CONTROL_PLANE_AREAS: "gateway-settlement", SETTLEMENT_INTERVAL_MS: "50" };
    const workers = await Promise.all(Array.from({ length: workerCount }, () => s.worker(env)));
    await eventually(async () => (await dirtyCount(s.redis, s.keys)) === 0, { what: "the workers idle" });
    // The gateway's marks go to keys no worker reads until the clock starts.
    const dirty = s.keys.gateway.settleDirty;
    const held = {
      ...s.keys,
      gateway: { ...s.keys.gateway, settleDirty: (p: string) => `${dirty(p)}:held` },
    };
    await servedReservations(
      { redis: s.redis, keys: held },
      { partyIds, perParty: PER_PARTY, cost: COST, costInUsd: "0.01", ttlSeconds: 172_800 },
    );
    const total = PER_PARTY * partyIds.length;
    const pids = workers.map((w) => w.child.pid as number);
    // The Postgres backends serving the workers (their pools' connections; a backend gone by the end is missed).
    const backends = async () =>
      (
        await s.db.execute<{ pid: number }>(
          sql`select pid from pg_stat_activity where application_name = 'control-plane-worker'`,
        )
      ).map((r) => r.pid);
    const redisPids = s.redisPids();
    const cpuBefore = cpuOf([...pids, ...(await backends()), ...redisPids]);
    const coresBefore = cpuTimes();
    const started = performance.now();
    await markDirty(s.redis, s.keys, partyIds);
    await eventually(
      async () => {
        const [row] = await s.db.execute<{ n: string }>(
          sql`select count(*)::text as n from reservations where status = 'settled'`,
        );
        return Number(row?.n) === total;
      },
      { what: `${total} reservations settled`, intervalMs: 50, timeoutMs: 600_000 },
    );
    const ms = performance.now() - started;
    const coresAfter = cpuTimes();
    const per1000 = (ms: number) => (ms / total) * 1000;
    const cpu = {
      workers: per1000(cpuSince(cpuBefore, pids)),
      postgres: per1000(cpuSince(cpuBefore, await backends())),
      redis: per1000(cpuSince(cpuBefore, [...redisPids])),
    };
    const check = await s.ledgerCheck();
    if (check.code !== 0) throw new Error(`ledger check after ${workerCount} workers: ${check.output}`);
    return {
      workers: workerCount,
      reservations: total,
      ms,
      perSecond: (total / ms) * 1000,
      cpu,
      coresBusy: (coresAfter.busy - coresBefore.busy) / (coresAfter.total - coresBefore.total),
    };
  } finally {
    await s.close();
  }
}

const f = (n: number, digits = 0) => n.toFixed(digits);
console.log(
  `settlement bench: ${TOTAL} reservations over ${PARTIES} parties, ${availableParallelism()} cores, load average ${loadavg()
    .map((l) => f(l, 1))
    .join(" ")} at start`,
);
const results = [];
for (const count of COUNTS) {
  const r = await run(count);
  results.push(r);
  console.log(
    `${r.workers} worker${r.workers > 1 ? "s" : ""}: ${r.reservations} settled in ${f(r.ms)} ms = ${f(r.perSecond)}/s; ` +
      `CPU ms per 1,000: workers ${f(r.cpu.workers)}, their Postgres backends ${f(r.cpu.postgres)}, Redis ${f(r.cpu.redis)}; ` +
      `cores busy ${f(r.coresBusy * 100)} % (ledger check clean)`,
  );
}
const [one, many] = [results[0], results.at(-1)];
if (one && many && one !== many)
  console.log(
    `${many.workers} workers / ${one.workers}: ${f(many.perSecond / one.perSecond, 2)}× the throughput`,
  );
