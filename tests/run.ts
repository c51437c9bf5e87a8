import type { ChildProcess } from "node:child_process";
import { mkdirSync, mkdtempSync, readdirSync, rmSync, statSync } from "node:fs";
import path from "node:path";
import { buildDashboard } from "@stake/control-plane/build";
import { ensureInfra, ROOT, stateDir } from "../scripts/lib/infra.ts";
import { signalGroup, spawnOwned, stopWithBootstrap } from "../scripts/lib/owned.ts";
import { freePort } from "../scripts/lib/ports.ts";
import { startRedisCluster } from "../scripts/lib/redis-cluster.ts";
import { bundleTests } from "./bundle.ts";
import { resetTestTemplate } from "./helpers/pg.ts";
import { killFiles, type LaneResult, runLanes, seconds } from "./lanes.ts";

/**
 * `npm test` (started by scripts/test.mjs): every check CI runs, side by side: typecheck (incremental, its
 * build info under .data/tsc), lint, and the tests in two lanes:
 *
 * - the fast lane: unit tests and integration tests on the shared Postgres and Redis;
 * - the slow lane: files that start real chains or whole deployments (anvil, the fault stacks, Chromium),
 *   whose timing a third neighbour would squeeze (tests/lanes.ts schedules both on the two cores).
 *
 * `npm run test:fast` runs typecheck, lint and the fast lane only (the edit loop); arguments name folders
 * or files to run instead of every test. Each check and each test file runs in a process group of its own
 * (scripts/lib/owned.ts), killed when the run ends however it ends, so no server a test started outlives
 * the run. The tests get
 * their own databases (cloned from a freshly migrated template) and their own Redis key prefixes. It lives
 * under tests/ because it drives the test fixtures: nothing under scripts/ imports test code.
 */
// Heaviest first: a slow file never timed on this clone starts in this order.
const SLOW_LANE = [
  /^tests\/scripts\/first-hour\.test\.ts$/,
  /^tests\/faults\//,
  /^tests\/polygon\//,
  /^tests\/statements\/polygon\.test\.ts$/,
  /^tests\/dashboard\//,
  /^tests\/console\/console\.test\.ts$/,
  /^tests\/beacon-data\/(backfill|consolidation|deposit-contract|genesis|hostile-node|lifecycle|real-nodes|register-bounds)\.test\.ts$/,
  /^tests\/beacon-provisioning\/exits\.test\.ts$/,
  /^tests\/beacon-consensus\/(breakdown|execution|lifecycle)\.test\.ts$/,
  /^tests\/webhooks\/worker-kill\.test\.ts$/,
  // Every bench in its smoke size: each starts whole deployments of its own.
  /^tests\/scripts\/benches-(gateway|areas)\.test\.ts$/,
];
/**
 * The cluster lane: files run a second time, as slow files, against a project-local Redis Cluster of three
 * masters (TEST_REDIS_CLUSTER_NODES; a fault stack starts a cluster of its own). The few that prove the
 * platform on a cluster: the gateway's hot path, settlement, and Redis killed under load (docs/testing.md,
 * "The cluster lane").
 */
const CLUSTER_LANE = [
  /^tests\/faults\/redis-gateway\.test\.ts$/,
  /^tests\/gateway\/(proxy|settlement)\.test\.ts$/,
];
const ROOTS = ["db", "gateway", "control-plane", "devnet", "tests"];

const args = process.argv.slice(2);
const fastOnly = args[0] === "--fast";
const roots = args.filter((a) => a !== "--fast");

const infra = await ensureInfra();
process.env.TEST_DATABASE_URL = infra.databaseUrl;
process.env.TEST_REDIS_URL = infra.redisUrl;
const started = Date.now();
const checkProcesses: ChildProcess[] = [];
const stop = (code: number) => {
  for (const c of checkProcesses) signalGroup(c, "SIGKILL");
  killFiles();
  infra.stop();
  process.exit(code);
};
for (const signal of ["SIGINT", "SIGTERM", "SIGHUP"] as const) process.once(signal, () => stop(130));
stopWithBootstrap();

const bin = (name: string) => path.join(ROOT, "node_modules", ".bin", name);
// TypeScript 7 (native): one checker thread costs a third of the CPU of its default four, for a second more
// of wall time, beside tests that want the cores (a cold check of the root project: 6 s of CPU, was 32 s
// with TypeScript 5.9).
const tsc = (project: string, info: string) =>
  [
    bin("tsc"),
    [
      "-p",
      project,
      "--noEmit",
      "--singleThreaded",
      "--incremental",
      "--tsBuildInfoFile",
      `.data/tsc/${info}.tsbuildinfo`,
    ],
  ] as const;

try {
  mkdirSync(path.join(ROOT, ".data", "tsc"), { recursive: true });
  const files = findTests(roots.length ? roots : ROOTS).map((f) => path.relative(ROOT, f));
  const slow = files.filter((f) => SLOW_LANE.some((re) => re.test(f)));
  const fast = files.filter((f) => !slow.includes(f));
  const clustered = fastOnly ? [] : files.filter((f) => CLUSTER_LANE.some((re) => re.test(f)));
  // The checks start first and run beside the bundling and the tests (on a clean clone the typecheck alone
  // takes ~8 s of one core).
  const checks = [
    check("typecheck", ...tsc("tsconfig.json", "root")),
    // The pages (dashboard, console) are browser code (DOM types, JSX): one project of their own.
    check("typecheck pages", ...tsc("control-plane/src/page-kit", "page")),
    check("lint", bin("biome"), ["check", "."]),
  ];
  const bundled = Date.now();
  // Side by side: the bundles, the cluster lane's Redis Cluster, the migrated template the tests'
  // databases are cloned from, and the dashboard the control planes serve from its build
  // (control-plane/build.ts), as `npm start` builds it.
  const [{ dir, bundles }, cluster] = await Promise.all([
    bundleTests(files),
    clustered.length ? startClusterForLane() : undefined,
    resetTestTemplate(infra.databaseUrl),
    buildDashboard(),
  ]);
  process.env.STAKE_BUNDLE_DIR = dir;
  console.log(
    `=== ${bundles.size} test files bundled, the template and the dashboard built in ${seconds(Date.now() - bundled)}`,
  );
  const results = await Promise.all([
    ...checks,
    runLanes(
      [
        { name: "fast", files: fast, slow: false },
        { name: "slow", files: fastOnly ? [] : slow, slow: true },
        { name: "cluster", files: clustered, slow: true, env: cluster?.env },
      ],
      SLOW_LANE,
      bundles,
    ).finally(() => cluster?.stop()),
  ]).then((r) => r.flat());
  console.log("");
  for (const failure of results.flatMap((r) => r.failures ?? [])) console.log(`=== failed: ${failure}\n`);
  for (const r of results)
    console.log(`=== ${r.name}: ${r.code === 0 ? "ok" : `FAILED (exit ${r.code})`}, ${r.summary}`);
  console.log(`=== npm test: ${seconds(Date.now() - started)} after start-up`);
  stop(results.some((r) => r.code !== 0) ? 1 : 0);
} catch (err) {
  console.error(err);
  stop(1);
}

/** A check whose output is printed whole when it ends, so it does not interleave with the test lanes. */
function check(name: string, cmd: string, cmdArgs: readonly string[]): Promise<LaneResult> {
  const t = Date.now();
  const child = spawnOwned(cmd, [...cmdArgs], {
    cwd: ROOT,
    env: process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  checkProcesses.push(child);
  let output = "";
  child.stdout?.on("data", (d: Buffer) => (output += d));
  child.stderr?.on("data", (d: Buffer) => (output += d));
  return new Promise((resolve) =>
    child.once("close", (code) => {
      const failed = code !== 0;
      console.log(`\n=== ${name}${failed ? " FAILED" : ""}\n${output.trimEnd()}`);
      resolve({ name, code: code ?? 1, summary: seconds(Date.now() - t) });
    }),
  );
}

/** A Redis Cluster of three masters for the cluster lane, under .data/, removed when stopped. */
async function startClusterForLane() {
  const dir = path.join(stateDir(), "redis-cluster");
  mkdirSync(dir, { recursive: true });
  const home = mkdtempSync(path.join(dir, "lane-"));
  const ports = [];
  for (let i = 0; i < 3; i++) ports.push({ port: await freePort(), busPort: await freePort() });
  const cluster = await startRedisCluster({ dir: home, ports, log: console.error });
  return {
    env: { TEST_REDIS_URL: cluster.url, TEST_REDIS_CLUSTER_NODES: cluster.nodes.join(",") },
    stop() {
      cluster.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
}

function findTests(paths: string[]): string[] {
  const out: string[] = [];
  const walk = (p: string) => {
    if (statSync(p).isFile()) {
      if (p.endsWith(".test.ts")) out.push(p);
      return;
    }
    for (const entry of readdirSync(p))
      if (entry !== "node_modules" && !entry.startsWith(".")) walk(path.join(p, entry));
  };
  for (const r of paths) walk(path.resolve(ROOT, r));
  return out.sort();
}
