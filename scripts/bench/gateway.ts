/**
 * `npm run bench:gateway`: side by side on loopback, each server in its own process —
 *   direct (1 KiB upstream) · nginx with one worker and a keep-alive upstream (when installed) · bare undici dispatch proxy ·
 *   this gateway with auth, idempotency, Redis reservation, finalize and access log.
 * Prints req/s, p50/p99, ratios, CPU ms per request and peak RSS at 1000 connections, then runs the
 * worker's settlement passes in-process (control-plane/src/features/gateway-settlement/; `npm run
 * bench:gateway` starts this process with the worker's V8 flags, WORKER_NODE_FLAGS), prints their
 * throughput against the gateway's best c100 round, and checks the books: nothing left in flight,
 * `reserved` back to exactly 0, and `ledger check` clean (balance = credits − debits, each debit = Σ the
 * reservations listing it).
 * The gateway runs with its metrics endpoint on (BENCH_METRICS=off to leave it off), scraped every second
 * during each of its runs; at the end a few of its figures are printed and its count of served requests
 * must equal the bench's own (else exit 1). BENCH_GATEWAY_PROCESSES=2 adds a gateway of two processes
 * (GATEWAY_PROCESSES) and prints req/s of 1 and 2 side by side.
 * Every run gets a fresh load-generator process (scripts/bench/load.ts): sharing one across runs let the
 * earlier targets' runs leave the later ones a multi-second tail at 1000 connections. Rounds run unpinned
 * and pinned (BENCH_PIN), on a Redis server of the bench's own (BENCH_REDIS), whose commands per request
 * are printed (scripts/bench/redis-breakdown.ts), over TCP or its Unix socket (scripts/bench/redis-socket.ts).
 */
import { type spawn, spawnSync } from "node:child_process";
import { randomBytes } from "node:crypto";
import { rmSync } from "node:fs";
import { availableParallelism } from "node:os";
import path from "node:path";
import { createGatewayOperatorService } from "@stake/control-plane/operator";
import { createDb } from "@stake/db/client";
import { runMigrations } from "@stake/db/migrate";
import { createRedis } from "@stake/db/redis/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { finalizeScript, reserveScript } from "@stake/db/redis/scripts";
import { buildGateway } from "@stake/gateway/build";
import postgres from "postgres";
import { startRedis, stateDir } from "../lib/infra.ts";
import { reportMetrics, type ScrapeStats, scrapeDuring } from "./gateway-metrics.ts";
import { FLOOR, pairedRounds, quickCallsBar, roundTripFloor } from "./quick-calls.ts";
import {
  commandStats,
  describeCommands,
  difference,
  type RunCommands,
  scriptTimes,
} from "./redis-breakdown.ts";
import { SOCKET_GATEWAY, socketAgainstTcp, socketArgs, socketMode } from "./redis-socket.ts";
import { settleAndCheck } from "./settle-books.ts";
import {
  freePort,
  load,
  median,
  medianResult,
  pin,
  type Result,
  startNginx,
  startProcess,
} from "./targets.ts";

const PG = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
// BENCH_REDIS=shared runs on REDIS_URL (the shared server); by default a Redis server of the bench's own,
// in memory like the shared one, so its CPU and its `INFO commandstats` count the gateway's commands only.
const OWN_REDIS = process.env.BENCH_REDIS !== "shared";
const REDIS_SOCKET = socketMode(OWN_REDIS);
// BENCH_PIN=on: the load generator on CPU 1, every server (target, upstream, Redis) on CPU 0, so the client's
// parsing takes no CPU from the server measured; off leaves them to the scheduler; both (default) does both.
const PIN = process.env.BENCH_PIN ?? "both";
const PIN_MODES = PIN === "both" ? [false, true] : [PIN === "on"];
const ALL_CPUS = `0-${availableParallelism() - 1}`;
const SECONDS = Number(process.env.BENCH_SECONDS ?? "4");
// BENCH_LEVELS=100 (comma-separated) runs only those connection counts, for quick comparisons.
const LEVELS = (process.env.BENCH_LEVELS ?? "1,100,1000").split(",").map(Number);
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? "3");
const ONLY = process.env.BENCH_ONLY?.split(",");
// BENCH_GATEWAY_PROCESSES=2 adds a gateway of that many processes (GATEWAY_PROCESSES) beside the one of one.
const PROCESSES = Number(process.env.BENCH_GATEWAY_PROCESSES ?? "1");
// BENCH_METRICS=off runs the gateway without its metrics endpoint (to measure what counting costs).
const METRICS = process.env.BENCH_METRICS !== "off";
const BUILD_DIR = path.join(stateDir(), "bench-gateway", String(process.pid));

async function main() {
  const dbName = `staking_bench_${randomBytes(4).toString("hex")}`;
  const admin = postgres(PG, { max: 1, onnotice: () => {} });
  await admin.unsafe(`create database ${dbName}`); // own database and Redis prefix, dropped at the end
  const dbUrl = Object.assign(new URL(PG), { pathname: `/${dbName}` }).toString();
  await runMigrations(dbUrl);
  const pg = createDb(dbUrl, { max: 2 });
  const redisDir = path.join(stateDir(), "bench-redis", String(process.pid));
  const redisSocket = path.join(redisDir, "redis.sock");
  const ownRedis = OWN_REDIS
    ? await startRedis({
        dir: redisDir,
        port: await freePort(),
        args: ["--appendonly", "no", ...socketArgs(REDIS_SOCKET, redisSocket)],
      })
    : undefined;
  const REDIS = ownRedis?.url ?? process.env.REDIS_URL ?? "redis://127.0.0.1:6379";
  const socketRedis = `unix://${redisSocket}`;
  const gatewayRedis = REDIS_SOCKET === "unix" ? socketRedis : REDIS;
  const redis = createRedis(REDIS, { name: "bench" });
  const prefix = `bench:${randomBytes(4).toString("hex")}:`;
  const keys = createRedisKeys(prefix);
  const children: ReturnType<typeof spawn>[] = [];

  try {
    const upstream = startProcess(["scripts/bench/upstream.ts"]);
    children.push(upstream.child);
    const upstreamUrl = await upstream.ready;
    const bare = startProcess(["scripts/bench/bare-proxy.ts", upstreamUrl]);
    children.push(bare.child);
    const floorProxy = startProcess(["scripts/bench/floor-proxy.ts", upstreamUrl, gatewayRedis]);
    children.push(floorProxy.child);

    const operator = createGatewayOperatorService({ db: pg.db, redis, keys });
    await operator.addProvider({ key: "bench", originUrl: upstreamUrl, costInUsd: "0.000001" });
    await operator.setCoinRate("1");
    const bench = await operator.openAccount({ email: "bench@example.test", coins: "100000000" });
    const partyId = bench.partyId!;

    // The deployable as `npm start` runs it (built for this run alone: benches run side by side, and
    // gateway/dist/ is npm start's): the built bundle on plain node, its metrics endpoint on.
    const bundle = await buildGateway(BUILD_DIR);
    const startGateway = async (processes: number, redisUrl = gatewayRedis) => {
      const metricsPort = METRICS ? String(await freePort()) : undefined;
      const gw = startProcess([bundle], {
        GATEWAY_PORT: "0",
        GATEWAY_HOST: "127.0.0.1",
        GATEWAY_PROCESSES: String(processes),
        ...(metricsPort ? { GATEWAY_METRICS_PORT: metricsPort } : {}),
        DATABASE_URL: dbUrl,
        REDIS_URL: redisUrl,
        REDIS_PREFIX: prefix,
        LOG_LEVEL: process.env.BENCH_GATEWAY_LOG ?? "info",
        // The bench's one party sends thousands per second: the limit's counter runs on every batch (its
        // cost is measured) but never refuses.
        GATEWAY_PARTY_RATE_LIMIT: "1000000000",
      });
      children.push(gw.child);
      const metricsUrl = metricsPort ? `http://127.0.0.1:${metricsPort}/metrics` : undefined;
      return { url: await gw.ready, pid: gw.child.pid as number, metricsUrl };
    };
    const gw = await startGateway(1);

    const targets: Array<{
      name: string;
      url: string;
      path: string;
      pid: number;
      gatewayKey?: string;
      metricsUrl?: string | undefined;
      /** It calls Redis: Redis's CPU is counted against its requests. */
      redis?: boolean;
    }> = [
      { name: "direct", url: upstreamUrl, path: "/", pid: upstream.child.pid as number },
      {
        name: "bare undici dispatch",
        url: await bare.ready,
        path: "/",
        pid: bare.child.pid as number,
      },
      {
        name: FLOOR,
        url: await floorProxy.ready,
        path: "/",
        pid: floorProxy.child.pid as number,
        redis: true,
      },
      { name: "gateway + billing", path: "/gateway/bench/x", gatewayKey: bench.apiKey, redis: true, ...gw },
    ];
    if (REDIS_SOCKET === "both")
      targets.push({
        name: SOCKET_GATEWAY,
        path: "/gateway/bench/x",
        gatewayKey: bench.apiKey,
        redis: true,
        ...(await startGateway(1, socketRedis)),
      });
    if (PROCESSES > 1) {
      const name = `gateway ×${PROCESSES} processes`;
      targets.push({
        name,
        path: "/gateway/bench/x",
        gatewayKey: bench.apiKey,
        redis: true,
        ...(await startGateway(PROCESSES)),
      });
    }
    const nginx = await startNginx(upstreamUrl);
    if (nginx) {
      children.push(nginx.child);
      targets.splice(1, 0, {
        name: "nginx (1 worker)",
        url: nginx.url,
        path: "/",
        pid: nginx.workerPid,
      });
    } else console.log("nginx: not installed, skipped");

    // Redis's own CPU counts against the gateway's budget on this box: read it when Redis runs here.
    const redisPidText = /process_id:(\d+)/.exec(await redis.info("server"))?.[1];
    const redisPid =
      redisPidText && spawnSync("test", ["-r", `/proc/${redisPidText}/stat`]).status === 0
        ? Number(redisPidText)
        : undefined;
    // Every target is warmed up first; then each connection count runs in rounds with the targets taken in
    // turn inside a round, so a drift of this shared machine hits them alike and each ratio is paired
    // within a round. Medians are reported (c1000, for peak RSS, runs once).
    const chosen = targets.filter((t) => !ONLY || ONLY.some((prefix) => t.name.startsWith(prefix)));
    // What each gateway served by the bench's own count (200s), and its endpoint scraped during each run.
    const served = new Map<string, number>(chosen.map((t) => [t.name, 0]));
    const scraped = new Map<string, ScrapeStats[]>(chosen.map((t) => [t.name, []]));
    // Every server this bench started; pinned runs move them all to CPU 0 and the load generator to CPU 1.
    const servers = [...children.map((c) => c.pid as number), ...(redisPid && ownRedis ? [redisPid] : [])];
    const named = (name: string, pinned: boolean) => (pinned ? `${name} pinned` : name);
    const commands = new Map<string, RunCommands[]>();
    const measure = async (t: (typeof chosen)[number], c: number, seconds: number, pinned = false) => {
      const scraping = t.metricsUrl ? scrapeDuring(t.metricsUrl) : undefined;
      const counted = t.gatewayKey && ownRedis;
      const before = counted ? await commandStats(redis) : undefined;
      const redisOf = t.redis ? redisPid : undefined;
      const r = await load(t.url, t.path, c, seconds, t.pid, t.gatewayKey, redisOf, pinned ? "1" : undefined);
      if (before) {
        const key = `${named(t.name, pinned)} c${c}`;
        const stats = difference(await commandStats(redis), before);
        commands.set(key, [...(commands.get(key) ?? []), { stats, requests: r.count + r.errors }]);
      }
      if (scraping) scraped.get(t.name)?.push(await scraping.stop());
      served.set(t.name, (served.get(t.name) ?? 0) + r.count);
      return r;
    };
    for (const t of chosen) await measure(t, 50, Math.min(1, SECONDS)); // warm-up; a smoke run's shorter
    const runs: Record<string, Record<number, Result[]>> = Object.fromEntries(
      chosen.flatMap((t) =>
        PIN_MODES.map((p) => [named(t.name, p), Object.fromEntries(LEVELS.map((c) => [c, [] as Result[]]))]),
      ),
    );
    for (const c of LEVELS) {
      for (let round = 0; round < (c === 1000 ? 1 : ROUNDS); round++) {
        // c1000 (peak RSS) once, in the first mode (unpinned unless BENCH_PIN=on).
        for (const pinned of c === 1000 ? [PIN_MODES[0] as boolean] : PIN_MODES) {
          pin(servers, pinned ? "0" : ALL_CPUS);
          for (const t of chosen)
            runs[named(t.name, pinned)]?.[c]?.push(await measure(t, c, SECONDS, pinned));
        }
      }
    }
    pin(servers, ALL_CPUS);
    const rows: Record<string, Partial<Record<string, Result>>> = {};
    for (const [name, byLevel] of Object.entries(runs)) {
      rows[name] = Object.fromEntries(Object.entries(byLevel).map(([c, rs]) => [`c${c}`, medianResult(rs)]));
    }

    const f = (x: number, d = 2) => (Number.isFinite(x) ? x.toFixed(d) : "-");
    console.log(
      `\nper target (median of ${ROUNDS} rounds of ${SECONDS}s at c1 and c100, one at c1000; c = concurrent connections; latency ms; server CPU ms per request)`,
    );
    console.log(
      "target                      | c1 req/s  p50   p99  cpu/req | c100 req/s  p50   p99   cpu/req | c1000 req/s  p99    peak RSS MB | errors",
    );
    for (const [name, r] of Object.entries(rows)) {
      const { c1, c100, c1000 } = r as Record<string, Result>;
      console.log(
        `${name.padEnd(27)} | ${f(c1?.rps ?? 0, 0).padStart(8)} ${f(c1?.p50 ?? 0)} ${f(c1?.p99 ?? 0)} ${f(c1?.cpuPerReq ?? 0, 3)} | ${f(c100?.rps ?? 0, 0).padStart(9)} ${f(c100?.p50 ?? 0)} ${f(c100?.p99 ?? 0)} ${f(c100?.cpuPerReq ?? 0, 3)} | ${f(c1000?.rps ?? 0, 0).padStart(10)} ${f(c1000?.p99 ?? 0)} ${f(c1000?.peakRss ?? 0, 1).padStart(8)} | ${(c1?.errors ?? 0) + (c100?.errors ?? 0) + (c1000?.errors ?? 0)}`,
      );
    }
    const g = rows["gateway + billing"] as Record<string, Result> | undefined;
    if (g && redisPid)
      console.log(
        `Redis server CPU ms per gateway request: c1 ${f(g.c1?.redisCpuPerReq ?? 0, 3)} · c100 ${f(g.c100?.redisCpuPerReq ?? 0, 3)} · c1000 ${f(g.c1000?.redisCpuPerReq ?? 0, 3)}${ownRedis ? "" : " (the shared Redis: other clients' commands count too)"}`,
      );
    const gp = rows["gateway + billing pinned"] as Record<string, Result> | undefined;
    if (gp && redisPid)
      console.log(
        `pinned: Redis server CPU ms per gateway request: c1 ${f(gp.c1?.redisCpuPerReq ?? 0, 3)} · c100 ${f(gp.c100?.redisCpuPerReq ?? 0, 3)}`,
      );
    for (const [key, rs] of commands)
      if (!key.includes(" c1000")) console.log(`Redis per request, ${key}: ${describeCommands(rs)}`);
    let floor: number | undefined;
    if (ownRedis && g) {
      const probe = chosen.find((t) => t.name === "gateway + billing");
      const shas = { "reserve.lua": reserveScript.script.sha, "finalize.lua": finalizeScript.script.sha };
      const secs = Math.min(2, SECONDS); // a smoke run's length when shorter
      const times = await scriptTimes(redis, shas, async () => probe && (await measure(probe, 1, secs)));
      console.log(`Redis time per script call at c1 (SLOWLOG, every call for ${secs} s): ${times}`);
      floor = redisPid
        ? (await roundTripFloor(gatewayRedis, redisPid, Math.min(2000, SECONDS * 1000))).cpuMs
        : undefined;
      console.log(
        `Redis CPU ms per round trip of a no-op script, c1 (the floor; ${REDIS_SOCKET === "unix" ? "Unix socket" : "TCP loopback"}): ${f(floor ?? 0, 3)}`,
      );
      if (REDIS_SOCKET === "both" && redisPid)
        console.log(
          `the same over the Unix socket: ${f((await roundTripFloor(socketRedis, redisPid)).cpuMs, 3)}`,
        );
    }
    if (!g) return;
    // Paired within each round, then the median round; every round's figure is shown so the spread is too.
    const paired = (
      label: string,
      level: number,
      other: string,
      of: (gw: Result, base: Result) => number,
      unit: string,
      target: string,
      of1 = "gateway + billing",
    ) => {
      const values = pairedRounds(runs, of1, other, level, of);
      if (!values.length) return;
      const digits = unit ? 3 : 2;
      console.log(
        `${label}: ${f(median(values), digits)}${unit} (rounds: ${values.map((v) => f(v, digits)).join(", ")}) (target ${target})`,
      );
    };
    for (const pinned of PIN_MODES) {
      const n = (name: string) => named(name, pinned);
      const say = (label: string) => (pinned ? `pinned: ${label}` : label);
      console.log();
      const gw = n("gateway + billing");
      const ratio = (x: Result, y: Result) => x.rps / y.rps;
      const atC100 = (label: string, other: string, target: string) =>
        paired(say(`gateway / ${label} req/s at c100`), 100, n(other), ratio, "", target, gw);
      atC100("bare dispatch", "bare undici dispatch", "≥ 0.60");
      const added = (x: Result, d: Result) => x.p50 - d.p50;
      paired(say("gateway added p50 at c1 over direct"), 1, n("direct"), added, " ms", "≤ 0.3 ms", gw);
      atC100("nginx (1 worker)", "nginx (1 worker)", "≥ 0.30");
      console.log(quickCallsBar(runs, pinned, floor));
      if (REDIS_SOCKET === "both") console.log(socketAgainstTcp(runs, pinned));
    }
    if (g.c1000) console.log(`gateway peak RSS at c1000: ${f(g.c1000.peakRss, 1)} MB (target ≤ 192)`);
    const many = `gateway ×${PROCESSES} processes`;
    if (rows[many]) {
      // Side by side: the load generator, the provider stub and Redis share the same 2 cores, so a second
      // gateway process mostly takes CPU from them (README of docs/benchmarks.md).
      for (const c of LEVELS) {
        const one = rows["gateway + billing"]?.[`c${c}`];
        const n = rows[many]?.[`c${c}`];
        if (one && n)
          console.log(
            `gateway req/s at c${c}: 1 process ${f(one.rps, 0)} · ${PROCESSES} processes ${f(n.rps, 0)}`,
          );
        paired(
          `gateway ${PROCESSES} / 1 processes req/s at c${c}`,
          c,
          "gateway + billing",
          (m, o) => m.rps / o.rps,
          "",
          `< ${PROCESSES} here`,
          many,
        );
      }
    }

    // Let the last finalizes land, settle as the worker would, then check the books.
    await new Promise((r) => setTimeout(r, 500));
    for (const t of chosen)
      if (
        t.metricsUrl &&
        !(await reportMetrics(t.name, t.metricsUrl, served.get(t.name) ?? 0, scraped.get(t.name) ?? []))
      )
        process.exitCode = 1;
    const c100 = (runs["gateway + billing"]?.[100] ?? []).map((r) => r.rps);
    const books = await settleAndCheck(
      { db: pg.db, redis, keys },
      partyId,
      c100.length ? Math.max(...c100) : 0,
    );
    for (const line of books.lines) console.log(line);
    if (!books.ok) process.exitCode = 1;
  } finally {
    // Each drains and exits (a gateway writes its BENCH_PROFILE then); one still running after 10 s is killed.
    const exited = children.map((c) =>
      c.exitCode !== null || c.signalCode !== null ? undefined : new Promise((r) => c.once("exit", r)),
    );
    for (const c of children) c.kill("SIGTERM");
    const stuck = setTimeout(() => {
      for (const c of children) c.kill("SIGKILL");
    }, 10_000);
    await Promise.all(exited);
    clearTimeout(stuck);
    let cursor = "0";
    do {
      const [next, batch] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 5000);
      cursor = next;
      if (batch.length) await redis.del(...batch);
    } while (cursor !== "0");
    await redis.quit();
    ownRedis?.stop();
    rmSync(BUILD_DIR, { recursive: true, force: true });
    await pg.close();
    await admin.unsafe(`drop database if exists ${dbName} with (force)`);
    await admin.end();
  }
}

await main();
