/**
 * `npm run bench:gateway:baseline`: this tree's gateway against an earlier commit's, on the same busy
 * machine, by running each tree's own `bench:gateway` (bare undici dispatch and the gateway, c100) in turn,
 * several rounds, the order alternating. Each run's gateway/bare ratio is already paired within the run,
 * so the machine's drift cancels out of it; the medians over rounds are compared.
 *   BENCH_BASELINE_DIR=<worktree of the earlier commit, installed> [BENCH_BASELINE_ROUNDS=4]
 * This tree's bench runs two gateways side by side, with its metrics endpoint on (scraped every second)
 * and off, so what counting costs is told apart from the rest of the new work within each of its rounds.
 * BENCH_ROUNDS and BENCH_SECONDS pass through to each bench (more, shorter rounds pair more closely).
 */
import { spawnSync } from "node:child_process";
import { ROOT } from "../lib/infra.ts";
import { median } from "./targets.ts";

const BASE = process.env.BENCH_BASELINE_DIR;
if (!BASE)
  throw new Error("BENCH_BASELINE_DIR: a worktree of the baseline commit, with its packages installed");
const ROUNDS = Number(process.env.BENCH_BASELINE_ROUNDS ?? "4");

interface Run {
  ratio: number;
  rps: number;
  /** Gateway CPU ms per request at c100. */
  cpu: number;
}

/** A gateway row's c100 figures and its paired ratio to bare dispatch, from a bench's output. */
function figures(out: string, row: string, ratioLine: string): Run {
  const ratio = new RegExp(`^${ratioLine} req/s at c100: ([\\d.]+)`, "m").exec(out)?.[1];
  // A gateway row: "<name> | c1 … | c100 req/s p50 p99 cpu/req | …".
  const c100 = out
    .split("\n")
    .find((l) => l.startsWith(row))
    ?.split("|")[2]
    ?.trim()
    .split(/\s+/)
    .map(Number);
  if (!ratio || !c100 || c100.length < 4) throw new Error(`no c100 figures of ${row} in:\n${out}`);
  return { ratio: Number(ratio), rps: c100[0] as number, cpu: c100[3] as number };
}

function bench(cwd: string): string {
  const out = spawnSync(process.execPath, ["--import", "tsx", "scripts/bench/gateway.ts"], {
    cwd,
    env: { ...process.env, BENCH_ONLY: "bare,gateway", BENCH_LEVELS: "100", BENCH_GATEWAY_PROCESSES: "1" },
    encoding: "utf8",
    maxBuffer: 64 * 1024 * 1024,
  });
  if (out.status !== 0) throw new Error(`bench in ${cwd} failed:\n${out.stdout}\n${out.stderr}`);
  return out.stdout;
}

const trees = [
  {
    cwd: BASE,
    read: (out: string) => ({ baseline: figures(out, "gateway + billing", "gateway / bare dispatch") }),
  },
  {
    cwd: ROOT,
    read: (out: string) => ({
      "metrics on": figures(out, "gateway + billing", "gateway / bare dispatch"),
      "metrics off": figures(out, "gateway, metrics off", "gateway, metrics off / bare dispatch"),
    }),
  },
];
const names = ["baseline", "metrics off", "metrics on"] as const;
const runs = new Map<string, Run[]>(names.map((n) => [n, []]));
for (let round = 0; round < ROUNDS; round++) {
  // Alternating the order, so neither tree always runs first (or last) in a round.
  for (const tree of round % 2 ? [...trees].reverse() : trees) {
    for (const [name, r] of Object.entries(tree.read(bench(tree.cwd)))) {
      runs.get(name)?.push(r);
      console.log(
        `round ${round + 1} ${name.padEnd(11)} gateway/bare ${r.ratio.toFixed(3)} · ${r.rps.toFixed(0)} req/s · ${(r.cpu * 1000).toFixed(1)} µs CPU/req`,
      );
    }
  }
}

const med = (name: string, k: keyof Run) => median((runs.get(name) ?? []).map((r) => r[k]));
console.log(`\nmedians of ${ROUNDS} rounds (each a median of the bench's own rounds, c100):`);
for (const name of names)
  console.log(
    `${name.padEnd(11)} gateway/bare ${med(name, "ratio").toFixed(3)} · gateway ${(med(name, "cpu") * 1000).toFixed(1)} µs CPU per request`,
  );
const base = med("baseline", "ratio");
for (const name of names.slice(1)) {
  const rel = med(name, "ratio") / base;
  const extra = (med(name, "cpu") - med("baseline", "cpu")) * 1000;
  console.log(
    `${name} / baseline gateway/bare: ${rel.toFixed(3)} (${((rel - 1) * 100).toFixed(1)} %; target ≥ 0.95) · CPU per request ${extra >= 0 ? "+" : ""}${extra.toFixed(1)} µs`,
  );
}
const counting = (med("metrics on", "cpu") - med("metrics off", "cpu")) * 1000;
console.log(`metrics on − off: ${counting >= 0 ? "+" : ""}${counting.toFixed(1)} µs CPU per request`);
