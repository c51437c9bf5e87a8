/**
 * `npm run bench:gateway:baseline`: this tree's gateway against an earlier commit's, on the same busy
 * machine, by running each tree's own `bench:gateway` (bare undici dispatch and the gateway, c100) in turn,
 * several rounds, the order alternating. Each run's gateway/bare ratio is already paired within the run,
 * so the machine's drift cancels out of it; the medians over rounds are compared.
 *   BENCH_BASELINE_DIR=<worktree of the earlier commit, installed> [BENCH_BASELINE_ROUNDS=6]
 * Variants: the baseline; this tree with its metrics endpoint off (BENCH_METRICS=off); and with it on
 * (scraped every second), so what counting costs is told apart from the rest of the new work.
 */
import { spawnSync } from "node:child_process";
import { ROOT } from "../lib/infra.ts";
import { entryCommand } from "../lib/processes.ts";
import { median } from "./targets.ts";

const BASE = process.env.BENCH_BASELINE_DIR;
if (!BASE)
  throw new Error("BENCH_BASELINE_DIR: a worktree of the baseline commit, with its packages installed");
const ROUNDS = Number(process.env.BENCH_BASELINE_ROUNDS ?? "6");

interface Run {
  ratio: number;
  rps: number;
  /** Gateway CPU ms per request at c100. */
  cpu: number;
}

const variants = [
  { name: "baseline", cwd: BASE, env: {} },
  { name: "metrics off", cwd: ROOT, env: { BENCH_METRICS: "off" } },
  { name: "metrics on", cwd: ROOT, env: {} },
] as const;

function bench(cwd: string, env: Record<string, string>): Run {
  // This tree's bench from its bundle under `npm test`; the baseline's from its own sources.
  const entry = "scripts/bench/gateway.ts";
  const command = cwd === ROOT ? entryCommand(entry) : ["--import", "tsx", entry];
  const out = spawnSync(process.execPath, command, {
    cwd,
    env: {
      ...process.env,
      BENCH_ONLY: "bare,gateway",
      BENCH_LEVELS: "100",
      BENCH_GATEWAY_PROCESSES: "1",
      // Its ratios are the unpinned ones; pinned rounds would double every run.
      BENCH_PIN: process.env.BENCH_PIN ?? "off",
      ...env,
    },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (out.status !== 0) throw new Error(`bench in ${cwd} failed:\n${out.stdout}\n${out.stderr}`);
  const ratio = /gateway \/ bare dispatch req\/s at c100: ([\d.]+)/.exec(out.stdout)?.[1];
  // The gateway's row: "gateway + billing | c1 … | c100 req/s p50 p99 cpu/req | …".
  const row = out.stdout.split("\n").find((l) => l.startsWith("gateway + billing"));
  const c100 = row?.split("|")[2]?.trim().split(/\s+/).map(Number);
  if (!ratio || !c100 || c100.length < 4) throw new Error(`no c100 figures in:\n${out.stdout}`);
  return { ratio: Number(ratio), rps: c100[0] as number, cpu: c100[3] as number };
}

const runs = new Map<string, Run[]>(variants.map((v) => [v.name, []]));
for (let round = 0; round < ROUNDS; round++) {
  // Rotating the order, so each variant takes each place in a round equally often over 3 rounds (a later
  // place in a round ran measurably slower, whichever variant held it).
  const order = variants.map((_, i) => variants[(i + round) % variants.length] as (typeof variants)[number]);
  for (const v of order) {
    const r = bench(v.cwd, v.env);
    runs.get(v.name)?.push(r);
    console.log(
      `round ${round + 1} ${v.name.padEnd(11)} gateway/bare ${r.ratio.toFixed(3)} · ${r.rps.toFixed(0)} req/s · ${(r.cpu * 1000).toFixed(1)} µs CPU/req`,
    );
  }
}

const med = (name: string, k: keyof Run) => median((runs.get(name) ?? []).map((r) => r[k]));
console.log(`\nmedians of ${ROUNDS} rounds (each a median of the bench's own rounds, c100):`);
for (const v of variants)
  console.log(
    `${v.name.padEnd(11)} gateway/bare ${med(v.name, "ratio").toFixed(3)} · gateway ${(med(v.name, "cpu") * 1000).toFixed(1)} µs CPU per request`,
  );
const base = med("baseline", "ratio");
for (const v of variants.slice(1)) {
  const rel = med(v.name, "ratio") / base;
  const extra = (med(v.name, "cpu") - med("baseline", "cpu")) * 1000;
  console.log(
    `${v.name} / baseline gateway/bare: ${rel.toFixed(3)} (${((rel - 1) * 100).toFixed(1)} %; target ≥ 0.95) · CPU per request ${extra >= 0 ? "+" : ""}${extra.toFixed(1)} µs`,
  );
}
const counting = (med("metrics on", "cpu") - med("metrics off", "cpu")) * 1000;
console.log(`metrics on − off: ${counting >= 0 ? "+" : ""}${counting.toFixed(1)} µs CPU per request`);
