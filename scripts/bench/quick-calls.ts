/**
 * bars/Q-quick-calls, the bar of a lone paid request (docs/benchmarks.md, "a lone request"), from one
 * `npm run bench:gateway` at c1 and c100; and the floor it is held to: what one Redis round trip costs
 * Redis's process on this machine when it carries no work at all.
 */
import { createRedis } from "@stake/db/redis/client";
import { cpuMs, median, type Result } from "./targets.ts";

/**
 * Redis's CPU ms per call of a script that does nothing, called one at a time for `ms` from a connection
 * of its own: the read, the dispatch and the write of one round trip, which no script can cut. A lone
 * request makes two (its reservation before the proxy, its finalize once the provider answers).
 */
export async function roundTripFloor(url: string, redisPid: number, ms = 2000) {
  const client = createRedis(url, { name: "bench-floor" });
  try {
    const sha = String(await client.script("LOAD", "return 1"));
    await client.evalsha(sha, 0);
    const started = cpuMs(redisPid);
    const until = performance.now() + ms;
    let calls = 0;
    for (; performance.now() < until; calls++) await client.evalsha(sha, 0);
    return { cpuMs: (cpuMs(redisPid) - started) / calls, calls };
  } finally {
    await client.quit();
  }
}

type Runs = Record<string, Record<number, Result[]> | undefined>;

/**
 * Target `a` against `b` in each round at `level`, paired within the round (the targets take turns inside
 * one, so a drift of the machine hits both alike); none when their rounds do not pair up.
 */
export function pairedRounds(
  runs: Runs,
  a: string,
  b: string,
  level: number,
  of: (x: Result, y: Result) => number,
): number[] {
  const xs = runs[a]?.[level] ?? [];
  const ys = runs[b]?.[level] ?? [];
  if (!xs.length || xs.length !== ys.length) return [];
  return xs.map((x, i) => of(x, ys[i] as Result));
}
const paired = (...args: Parameters<typeof pairedRounds>) => median(pairedRounds(...args));

/** The target that is the design's floor (scripts/bench/floor-proxy.ts), run in the same rounds. */
export const FLOOR = "floor: bare + 2 Redis trips";

const BAR = { addedMs: 0.3, redisCpuMs: 0.05, ratio: 0.6 };

/**
 * One line per pin mode: the three figures against their targets, and whether all three are met; then
 * the floor's own figures in the same rounds, and what the gateway spends above it.
 */
export function quickCallsBar(runs: Runs, pinned: boolean, floorMs: number | undefined): string {
  const n = (name: string) => (pinned ? `${name} pinned` : name);
  const gw = n("gateway + billing");
  const added = paired(runs, gw, n("direct"), 1, (x, d) => x.p50 - d.p50);
  const redisCpu = median((runs[gw]?.[1] ?? []).map((r) => r.redisCpuPerReq));
  const ratio = paired(runs, gw, n("bare undici dispatch"), 100, (x, b) => x.rps / b.rps);
  const met = added <= BAR.addedMs && redisCpu <= BAR.redisCpuMs && ratio >= BAR.ratio;
  const f = (x: number, d: number) => (Number.isFinite(x) ? x.toFixed(d) : "-");
  const trip = floorMs === undefined ? "" : `; a no-op round trip here: ${f(floorMs, 3)} ms`;
  const say = pinned ? "pinned: " : "";
  const bar = [
    `${say}bars/Q-quick-calls:`,
    `added p50 at c1 ${f(added, 2)} ms (≤ 0.30)`,
    `· Redis CPU per request at c1 ${f(redisCpu, 3)} ms (≤ 0.05${trip})`,
    `· gateway/bare at c100 ${f(ratio, 2)} (≥ 0.60):`,
    met ? "met" : "not met",
  ].join(" ");
  const fl = n(FLOOR);
  if (!runs[fl]?.[1]?.length) return bar;
  const floorAdded = paired(runs, fl, n("direct"), 1, (x, d) => x.p50 - d.p50);
  const floorCpu = median((runs[fl]?.[1] ?? []).map((r) => r.redisCpuPerReq));
  const above = paired(runs, gw, fl, 1, (x, y) => x.p50 - y.p50);
  const below = (x: number, bar: number) => (x > bar ? ", above the bar" : "");
  return `${bar}
${say}the design's floor in the same rounds (${FLOOR}): added p50 at c1 ${f(floorAdded, 2)} ms${below(floorAdded, BAR.addedMs)} · Redis CPU per request at c1 ${f(floorCpu, 3)} ms${below(floorCpu, BAR.redisCpuMs)} · the gateway's p50 at c1 above the floor's: ${f(above, 2)} ms`;
}
