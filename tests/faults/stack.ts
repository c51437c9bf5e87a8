import assert from "node:assert/strict";
import { execFileSync, spawn, spawnSync } from "node:child_process";
import { createHash, randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createInterface } from "node:readline";
import { createDb } from "@stake/db/client";
import { coinsToBaseUnits } from "@stake/db/coin";
import { runMigrations } from "@stake/db/migrate";
import { createRedis } from "@stake/db/redis/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { reservations } from "@stake/db/schema/index";
import { and, eq } from "drizzle-orm";
import { Agent, request } from "undici";
import { WORKER_NODE_FLAGS } from "../../control-plane/build.ts";
import { createGatewayOperatorService } from "../../control-plane/src/features/gateway-account/operator-service.ts";
import { readBalance } from "../../control-plane/src/features/gateway-settlement/funding.ts";
import { type RedisDurability, ROOT, startPostgres, startRedis, stateDir } from "../../scripts/lib/infra.ts";
import { freePort } from "../../scripts/lib/ports.ts";
import { entryCommand, type Started, startProcess } from "../../scripts/lib/processes.ts";
import { startRedisCluster } from "../../scripts/lib/redis-cluster.ts";
import { eventually, sleep } from "../helpers/eventually.ts";
import { startProvider } from "../helpers/provider.ts";
import { testRedisTarget } from "../helpers/redis.ts";

/**
 * A whole deployment for one fault test, in real processes on loopback: its own Postgres and Redis
 * (project-local servers on ephemeral ports, never the shared ones), a provider, and gateways, workers
 * and a control plane as child processes that the test kills with real signals.
 */
export const REAP_AFTER_MS = 4_000;
export const PREFIX = "fault:";
/** 0.01 USD at 0.5 USD/coin = 0.02 coin per paid request. */
export const COST = 200_000_000n;
/**
 * What every test funds its party with: 100,000 coins, 5 million requests, so the unpaced load never runs
 * out however fast the machine (1,000 coins, 50,000 requests, ran out within 30 s on Node 22).
 */
export const FUNDED_COINS = "100000";
export const FUNDED = coinsToBaseUnits(FUNDED_COINS);

/**
 * A fresh folder under the project's state directory that Postgres (run as the postgres user when we are
 * root) can enter: the system temp directory is shared by every copy of the project on the host.
 */
function reachableTempDir(prefix: string): string {
  const parent = path.join(stateDir(), "faults");
  mkdirSync(parent, { recursive: true, mode: 0o755 });
  const dir = mkdtempSync(path.join(parent, prefix));
  chmodSync(dir, 0o755);
  return dir;
}

/**
 * A stopped, migrated Postgres cluster that each stack copies (`cp -a` keeps the owner and modes), so a
 * test pays for initdb and the migrations once per migration journal, not once per stack.
 */
async function migratedCluster(): Promise<string> {
  const journal = readFileSync(path.join(ROOT, "db/migrations/meta/_journal.json"));
  const tag = createHash("sha256").update(journal).digest("hex").slice(0, 12);
  const dir = path.join(stateDir(), "faults", `pg-${tag}`);
  if (existsSync(path.join(dir, "ready"))) return path.join(dir, "data");
  const work = reachableTempDir("fault-pg-build-");
  const pg = await startPostgres({ dir: path.join(work, "data"), port: await freePort() });
  await runMigrations(pg.url);
  pg.stop();
  writeFileSync(path.join(work, "ready"), "");
  // Another test file may have built it meanwhile: keep theirs.
  if (spawnSync("mv", ["-T", work, dir]).status !== 0) rmSync(work, { recursive: true, force: true });
  return path.join(dir, "data");
}

export async function startStack(options: { redisFsync?: RedisDurability; reapAfterMs?: number } = {}) {
  const home = reachableTempDir("fault-stack-");
  const pgOptions = { dir: path.join(home, "pg", "data"), port: await freePort() };
  mkdirSync(path.dirname(pgOptions.dir));
  execFileSync("cp", ["-a", await migratedCluster(), pgOptions.dir]);
  let pg = await startPostgres(pgOptions);
  const redisServer = await stackRedis(path.join(home, "redis"), options.redisFsync ?? "always");
  const database = createDb(pg.url, { max: 4, applicationName: "fault-test" });
  const redis = createRedis(redisServer, { name: "fault-test" });
  const keys = createRedisKeys(PREFIX);
  const operator = createGatewayOperatorService({ db: database.db, redis, keys });
  const provider = await startProvider();
  const children: Started[] = [];

  const env = (extra: Record<string, string> = {}): NodeJS.ProcessEnv => ({
    PATH: process.env.PATH,
    DATABASE_URL: pg.url,
    REDIS_URL: redisServer.redisUrl,
    REDIS_CLUSTER_NODES: redisServer.redisClusterNodes.join(","),
    REDIS_PREFIX: PREFIX,
    LOG_LEVEL: "error",
    GATEWAY_HOST: "127.0.0.1",
    GATEWAY_PORT: "0",
    CONTROL_PLANE_HOST: "127.0.0.1",
    CACHE_TTL_MS: "1000",
    UPSTREAM_TIMEOUT_MS: "2000",
    SETTLEMENT_INTERVAL_MS: "200",
    // A killed worker's party waits for its lease to expire: short here, so a takeover takes seconds.
    SETTLEMENT_LEASE_MS: "2000",
    RESERVATION_REAP_AFTER_MS: String(options.reapAfterMs ?? REAP_AFTER_MS),
    // Below the shortest reap delay here (4 s) by more than the 1 s margin the worker's config requires.
    GATEWAY_REQUEST_DEADLINE_MS: "2500",
    DATABASE_POOL_SIZE: "4",
    // The paid load here is what is under test, not the per-party limit (tests/gateway/party-limit.test.ts).
    GATEWAY_PARTY_RATE_LIMIT: "0",
    // The control plane and worker start on their public demo secrets, like `npm start`.
    DEMO_MODE: "1",
    ...extra,
  });

  const stack = {
    /** The running Postgres (the one `startPostgres` started last). */
    get pg() {
      return pg;
    },
    db: database.db,
    redis,
    keys,
    operator,
    provider,
    env,
    /** Starts the stopped Postgres again (same folder, same port). */
    async startPostgres() {
      pg = await startPostgres(pgOptions);
    },
    /** SIGKILLs Redis, every node of a cluster (no shutdown, no final AOF rewrite). */
    killRedis: () => redisServer.kill(),
    /** Starts Redis again on the same ports and folders: it loads its append-only file (a node its nodes.conf). */
    restartRedis: () => redisServer.restart(),
    /** The Redis server's process ids (every node of a cluster). */
    redisPids: () => redisServer.pids(),
    async gateway(name = "gateway", extra: Record<string, string> = {}) {
      const started = await startProcess({
        name,
        entry: path.join(ROOT, "gateway/src/main.ts"),
        env: env(extra),
      });
      children.push(started);
      return started;
    },
    async worker(extra: Record<string, string> = {}) {
      const port = await freePort();
      const started = await startProcess({
        name: "worker",
        entry: path.join(ROOT, "control-plane/src/worker.ts"),
        nodeFlags: WORKER_NODE_FLAGS,
        env: env({ WORKER_PORT: String(port), ...extra }),
        readyUrl: `http://127.0.0.1:${port}`,
      });
      children.push(started);
      return started;
    },
    /** A worker process whose settlement loop stops for good after `step` (prints `PAUSED <step>`). */
    async pausingWorker(step: string) {
      const started = await startProcess({
        name: "pausing-worker",
        entry: path.join(ROOT, "tests/faults/pausing-worker.ts"),
        env: env({ PAUSE_AFTER_STEP: step }),
      });
      children.push(started);
      return started;
    },
    async controlPlane() {
      const port = await freePort();
      const started = await startProcess({
        name: "control-plane",
        entry: path.join(ROOT, "control-plane/src/main.ts"),
        env: env({ CONTROL_PLANE_PORT: String(port) }),
        readyUrl: `http://127.0.0.1:${port}`,
      });
      children.push(started);
      return started;
    },
    /** The coin rate and the provider `echo` (0.01 USD a request). */
    async seedProvider() {
      await operator.setCoinRate("0.5");
      await operator.addProvider({ key: "echo", originUrl: provider.url, costInUsd: "0.01" });
    },
    /** `seedProvider`, and a gateway user with a key and a party funded with `coins`. */
    async seed() {
      await stack.seedProvider();
      const a = await operator.openAccount({ coins: FUNDED_COINS });
      return { userId: a.userId, partyId: a.partyId!, apiKey: a.apiKey };
    },
    /** `npm run operator -- ledger check --json` against this deployment: exit code and parsed output. */
    ledgerCheck(): Promise<{ code: number | null; differences: unknown[]; output: string }> {
      return new Promise((resolve) => {
        const child = spawn(
          process.execPath,
          [...entryCommand("scripts/operator/main.ts"), "ledger", "check", "--json"],
          { cwd: ROOT, env: env(), stdio: ["ignore", "pipe", "inherit"] },
        );
        let output = "";
        child.stdout.on("data", (d) => {
          output += d;
        });
        child.on("exit", (code) => {
          let differences: unknown[] = [];
          try {
            differences = (JSON.parse(output) as { differences: unknown[] }).differences;
          } catch {}
          resolve({ code, differences, output });
        });
      });
    },
    async close() {
      for (const c of children) if (c.child.exitCode === null && !c.child.killed) c.child.kill("SIGKILL");
      await provider.close();
      await Promise.allSettled([database.close(), redis.quit()]);
      pg.stop();
      redisServer.stop();
      rmSync(home, { recursive: true, force: true });
    },
  };
  return stack;
}

export type Stack = Awaited<ReturnType<typeof startStack>>;

/**
 * The stack's Redis: one server, or, when the tests run on the cluster lane (tests/run.ts), a cluster of
 * three masters of its own, killed and restarted whole.
 */
async function stackRedis(dir: string, fsync: RedisDurability) {
  if (testRedisTarget().redisClusterNodes.length) {
    const ports = [];
    for (let i = 0; i < 3; i++) ports.push({ port: await freePort(), busPort: await freePort() });
    const cluster = await startRedisCluster({ dir, ports, fsync });
    return { ...cluster, redisUrl: cluster.url, redisClusterNodes: cluster.nodes };
  }
  const port = await freePort();
  let server = await startRedis({ dir, port, fsync });
  return {
    redisUrl: server.url,
    redisClusterNodes: [] as string[],
    kill: () => process.kill(server.pid(), "SIGKILL"),
    pids: () => [server.pid()],
    async restart() {
      server = await startRedis({ dir, port, fsync });
    },
    stop: () => void spawnSync("redis-cli", ["-p", String(port), "shutdown", "nosave"]),
  };
}

/** Resolves with the first stdout line of `started` that matches (bounded like `eventually`: 60 s). */
export function waitForLine(started: Started, pattern: RegExp, timeoutMs = 60_000): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => reject(new Error(`no line matching ${pattern}`)), timeoutMs);
    const lines = createInterface({ input: started.child.stdout as NodeJS.ReadableStream });
    lines.on("line", (line) => {
      if (!pattern.test(line)) return;
      clearTimeout(timer);
      lines.close();
      resolve(line);
    });
  });
}

/** Sends SIGKILL and waits for the process to be gone. */
export function kill(started: Started): Promise<void> {
  return new Promise((resolve) => {
    if (started.child.exitCode !== null || started.child.signalCode) return resolve();
    started.child.once("exit", () => resolve());
    started.child.kill("SIGKILL");
  });
}

/**
 * Paid load: `concurrency` loops each sending paid requests with fresh idempotency keys until stopped,
 * `pauseMs` apart (10 ms: a fault needs requests in flight when it strikes, not throughput; unpaced, the
 * 30 s Postgres outage left tens of thousands of requests to settle and its file took 77 s of CPU, 44 s
 * paced, squeezing every file beside it). Counts answers by status; `served` are the 2xx the provider
 * answered.
 */
export function paidLoad(
  url: string,
  apiKey: string,
  options: { concurrency?: number; path?: string; pauseMs?: number } = {},
) {
  const pauseMs = options.pauseMs ?? 10;
  const agent = new Agent({ connections: options.concurrency ?? 4, headersTimeout: 20_000 });
  const statuses = new Map<number | string, number>();
  /** The first body of each status other than 200, so a failed assertion says what was answered. */
  const refusals = new Map<number, string>();
  let running = true;
  const loop = async () => {
    while (running) {
      const key = `load-${randomBytes(8).toString("hex")}`;
      let status: number | string;
      try {
        const res = await request(`${url}/gateway/echo${options.path ?? "/echo"}`, {
          dispatcher: agent,
          headers: { "x-gateway-api-key": apiKey, "idempotency-key": key },
        });
        status = res.statusCode;
        if (status !== 200 && !refusals.has(status)) refusals.set(status, await res.body.text());
        else await res.body.dump();
      } catch (err) {
        status = (err as { code?: string }).code ?? "error";
        // A refused connection comes back at once: do not spin while the gateway is down.
        await sleep(20);
      }
      statuses.set(status, (statuses.get(status) ?? 0) + 1);
      await sleep(pauseMs);
    }
  };
  const loops = Array.from({ length: options.concurrency ?? 4 }, loop);
  return {
    statuses,
    served: () => statuses.get(200) ?? 0,
    /** Waits until `n` more requests than now have been served: the load has run, whatever the machine's pace. */
    async serves(n: number) {
      const target = (statuses.get(200) ?? 0) + n;
      await eventually(() => (statuses.get(200) ?? 0) >= target, { what: `${n} more paid requests served` });
    },
    /** Statuses with their counts and a sample body of each refusal, for assertion messages. */
    describe: () => JSON.stringify({ statuses: [...statuses], refusals: [...refusals] }),
    async stop() {
      running = false;
      await Promise.all(loops);
      await agent.close();
      return statuses;
    },
  };
}

/** How many of the party's reservations Postgres holds as settled. */
export async function settledCount(s: Stack, partyId: string) {
  const rows = await s.db
    .select({ id: reservations.id })
    .from(reservations)
    .where(and(eq(reservations.partyId, partyId), eq(reservations.status, "settled")));
  return rows.length;
}

/** The party's balance shows each of `charged` requests charged exactly once, and `ledger check` is clean. */
export async function assertBooks(s: Stack, partyId: string, charged: number) {
  const { balance } = await readBalance(s.redis, s.keys, partyId);
  assert.equal(balance, FUNDED - BigInt(charged) * COST, "charged once each");
  const check = await s.ledgerCheck();
  assert.equal(check.code, 0, check.output);
}
