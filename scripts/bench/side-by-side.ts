/**
 * `npm run bench:gateway:side-by-side`: this tree's gateway against an earlier commit's, both under load
 * at the same time, each with a stack of its own (its database, its own Redis server, its upstream, its
 * load generator), so whatever the shared machine does in a round it does to both: the ratio of their
 * throughputs is paired at the instant, where runs one after the other (`bench:gateway:baseline`) met
 * swings of ±20 % between minutes on a busy VM. Each stack is set up by that tree's own code (migrations,
 * operator service, gateway bundle), in a child process per tree. What it measures is the whole stack:
 * sharing the cores, each stack's throughput follows the CPU all its processes spend on a request (~190 µs
 * here), so a cost in the gateway alone reads about half as large as in `bench:gateway`, where the gateway
 * process is the bottleneck (docs/benchmarks.md). Use it for whether a change costs anything,
 * and `bench:gateway` run alternately on both trees for how much the gateway pays.
 *   BENCH_BASELINE_DIR=<worktree of the earlier commit, installed> [BENCH_ROUNDS=10] [BENCH_SECONDS=5]
 *   [BENCH_CONNECTIONS=100] [BENCH_WARMUP_SECONDS=15] [BENCH_METRICS=off: this tree's gateway without its
 *   metrics endpoint]
 * Prints per round the two req/s, their ratio, and each gateway's and each Redis's CPU per request; then
 * the medians. This tree's metrics endpoint is scraped every second during the rounds, as Prometheus would.
 */
import { spawn } from "node:child_process";
import { randomBytes } from "node:crypto";
import path from "node:path";
import { createInterface } from "node:readline";
import { ROOT, startRedis, stateDir } from "../lib/infra.ts";
import { type ScrapeStats, scrapeDuring } from "./gateway-metrics.ts";
import { freePort, load, median, type Result, startProcess } from "./targets.ts";

const PG = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
const PREFIX = "bench:";

interface Stack {
  url: string;
  apiKey: string;
  gatewayPid: number;
  metricsUrl?: string;
}

/**
 * Child: one tree's stack on `redisUrl`. Prints the Stack as one JSON line, then serves until stdin
 * closes, and cleans up (its processes, its database).
 */
async function serve(tree: string, redisUrl: string, metrics: boolean) {
  const { runMigrations } = await import(`${tree}/db/src/migrate.ts`);
  const { createDb } = await import(`${tree}/db/src/client.ts`);
  const { createRedis } = await import(`${tree}/db/src/redis/client.ts`);
  const { createRedisKeys } = await import(`${tree}/db/src/redis/keys.ts`);
  const { createGatewayOperatorService } = await import(`${tree}/control-plane/src/operator.ts`);
  // The bundle and the V8 flags it ships with (gateway/package.json's start script), both the tree's own.
  const { buildGateway, GATEWAY_NODE_FLAGS } = await import(`${tree}/gateway/build.ts`);
  const { default: postgres } = await import("postgres");

  const dbName = `staking_side_${randomBytes(4).toString("hex")}`;
  const admin = postgres(PG, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`);
  const dbUrl = Object.assign(new URL(PG), { pathname: `/${dbName}` }).toString();
  const children: ReturnType<typeof spawn>[] = [];
  const pg = createDb(dbUrl, { max: 2 });
  const redis = createRedis(redisUrl, { name: "bench-side" });
  try {
    await runMigrations(dbUrl);
    const keys = createRedisKeys(PREFIX);
    const upstream = startProcess(["scripts/bench/upstream.ts"]);
    children.push(upstream.child);
    const operator = createGatewayOperatorService({ db: pg.db, redis, keys });
    await operator.addProvider({ key: "bench", originUrl: await upstream.ready, costInUsd: "0.000001" });
    await operator.setCoinRate("1");
    const account = await operator.openAccount({ email: "bench@example.test", coins: "100000000" });
    const metricsPort = metrics ? String(await freePort()) : undefined;
    // An earlier tree's buildGateway names its bundle relative to that tree.
    const gw = startProcess(
      [path.resolve(tree, await buildGateway())],
      {
        GATEWAY_PORT: "0",
        GATEWAY_HOST: "127.0.0.1",
        ...(metricsPort ? { GATEWAY_METRICS_PORT: metricsPort } : {}),
        DATABASE_URL: dbUrl,
        REDIS_URL: redisUrl,
        REDIS_PREFIX: PREFIX,
        LOG_LEVEL: "info",
        // As in bench:gateway: the limit's counter runs on every batch but never refuses.
        GATEWAY_PARTY_RATE_LIMIT: "1000000000",
      },
      GATEWAY_NODE_FLAGS,
    );
    children.push(gw.child);
    const stack: Stack = {
      url: await gw.ready,
      apiKey: account.apiKey,
      gatewayPid: gw.child.pid as number,
      ...(metricsPort ? { metricsUrl: `http://127.0.0.1:${metricsPort}/metrics` } : {}),
    };
    process.stdout.write(`${JSON.stringify(stack)}\n`);
    await new Promise((resolve) => process.stdin.on("close", resolve).resume());
  } finally {
    for (const c of children) c.kill("SIGTERM");
    await new Promise((r) => setTimeout(r, 300));
    await redis.quit();
    await pg.close();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
}

/** Starts a tree's stack in a child process; resolves with it once up. */
function stackOf(name: string, tree: string, redisUrl: string, metrics: boolean) {
  // BENCH_PROFILE=<dir>: each gateway's V8 CPU profile in <dir>/<baseline|this>, taken over the same minutes.
  const profile = process.env.BENCH_PROFILE;
  const child = spawn(
    process.execPath,
    ["--import", "tsx", "scripts/bench/side-by-side.ts", "serve", tree, redisUrl, metrics ? "on" : "off"],
    {
      cwd: ROOT,
      stdio: ["pipe", "pipe", "inherit"],
      env: { ...process.env, ...(profile ? { BENCH_PROFILE: path.join(profile, name) } : {}) },
    },
  );
  const ready = new Promise<Stack>((resolve, reject) => {
    const lines = createInterface({ input: child.stdout as NonNullable<typeof child.stdout> });
    lines.once("line", (line) => resolve(JSON.parse(line) as Stack));
    child.once("exit", (code) => reject(new Error(`the stack of ${tree} exited with ${code}`)));
  });
  return { child, ready };
}

async function main() {
  const base = process.env.BENCH_BASELINE_DIR;
  if (!base)
    throw new Error("BENCH_BASELINE_DIR: a worktree of the baseline commit, with its packages installed");
  const rounds = Number(process.env.BENCH_ROUNDS ?? "10");
  const seconds = Number(process.env.BENCH_SECONDS ?? "5");
  const connections = Number(process.env.BENCH_CONNECTIONS ?? "100");
  const metrics = process.env.BENCH_METRICS !== "off";

  const redisServers = await Promise.all(
    ["baseline", "this"].map(async (name) =>
      startRedis({
        dir: path.join(stateDir(), "bench-side", `${process.pid}-${name}`),
        port: await freePort(),
        // In memory only, like the shared test Redis the other benches use.
        args: ["--appendonly", "no"],
      }),
    ),
  );
  const stacks: ReturnType<typeof stackOf>[] = [];
  try {
    // One after the other: each stack builds its tree's gateway bundle, and two stacks of one tree (the
    // suite's smoke run) would remove and write the same bundle at once.
    stacks.push(stackOf("baseline", path.resolve(base), redisServers[0]!.url, false));
    const b = await stacks[0]!.ready;
    stacks.push(stackOf("this", ROOT, redisServers[1]!.url, metrics));
    const t = await stacks[1]!.ready;
    const redisPids = redisServers.map((r) => r.pid());
    const both = (secs: number) =>
      Promise.all([
        load(b.url, "/gateway/bench/x", connections, secs, b.gatewayPid, b.apiKey, redisPids[0]),
        load(t.url, "/gateway/bench/x", connections, secs, t.gatewayPid, t.apiKey, redisPids[1]),
      ]);
    // Warm-up: JIT, pools, caches. Shorter ones left this tree's gateway (more code to optimise) still
    // warming in the first rounds, its ratio rising round by round.
    const warm = await both(Number(process.env.BENCH_WARMUP_SECONDS ?? "15"));
    const results: Array<[Result, Result]> = [];
    const scrapes: ScrapeStats[] | undefined = t.metricsUrl ? [] : undefined;
    for (let round = 1; round <= rounds; round++) {
      const scraping =
        t.metricsUrl && process.env.BENCH_SCRAPE !== "off" ? scrapeDuring(t.metricsUrl) : undefined;
      const [rb, rt] = await both(seconds);
      if (scraping) scrapes?.push(await scraping.stop());
      if (rb.errors || rt.errors) throw new Error(`errors in round ${round}: ${rb.errors}, ${rt.errors}`);
      results.push([rb, rt]);
      console.log(
        `round ${round}: baseline ${rb.rps.toFixed(0)} req/s · this tree ${rt.rps.toFixed(0)} req/s · ratio ${(rt.rps / rb.rps).toFixed(3)} · gateway CPU µs/req ${(rb.cpuPerReq * 1000).toFixed(1)} vs ${(rt.cpuPerReq * 1000).toFixed(1)} · Redis ${(rb.redisCpuPerReq * 1000).toFixed(1)} vs ${(rt.redisCpuPerReq * 1000).toFixed(1)}`,
      );
    }
    const med = (of: (r: [Result, Result]) => number) => median(results.map(of));
    const ratio = med(([rb, rt]) => rt.rps / rb.rps);
    const us = (x: number) => (x * 1000).toFixed(1);
    console.log(
      `\nthis tree / baseline req/s at c${connections}, side by side, median of ${rounds} rounds of ${seconds} s: ${ratio.toFixed(3)} (${((ratio - 1) * 100).toFixed(1)} %; target ≥ 0.95)${metrics ? ", this tree's metrics endpoint scraped every second" : ", metrics off"}`,
    );
    console.log(
      `gateway CPU per request: baseline ${us(med(([rb]) => rb.cpuPerReq))} µs, this tree ${us(med(([, rt]) => rt.cpuPerReq))} µs; Redis: ${us(med(([rb]) => rb.redisCpuPerReq))} µs, ${us(med(([, rt]) => rt.redisCpuPerReq))} µs`,
    );
    if (process.env.BENCH_PROFILE)
      console.log(
        `requests over each profile (warm-up included): baseline ${warm[0].count + results.reduce((n, [rb]) => n + rb.count, 0)}, this tree ${warm[1].count + results.reduce((n, [, rt]) => n + rt.count, 0)}`,
      );
    if (scrapes)
      console.log(
        `scrapes during the rounds: ${scrapes.reduce((n, s) => n + s.scrapes, 0)}, longest ${Math.max(...scrapes.map((s) => s.maxMs)).toFixed(1)} ms`,
      );
  } finally {
    for (const s of stacks) s.child.stdin?.end();
    // A stack that failed has exited already: waiting for its exit event would wait for ever.
    const running = stacks.filter((s) => s.child.exitCode === null && s.child.signalCode === null);
    await Promise.all(running.map((s) => new Promise((r) => s.child.once("exit", r))));
    for (const r of redisServers) r.stop();
  }
}

if (process.argv[2] === "serve")
  await serve(process.argv[3] as string, process.argv[4] as string, process.argv[5] === "on");
else await main();
