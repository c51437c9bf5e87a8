/**
 * Makes sure Postgres and Redis answer. `DATABASE_URL` / `REDIS_URL` win when set; otherwise the local
 * servers on their standard ports are used, and when none answers, project-local servers are started under
 * `.data/` from the system's binaries (on their own ports, so they never clobber a developer's servers).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { createHash } from "node:crypto";
import { existsSync, mkdirSync, readdirSync, readFileSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { own, release, spawnOwned } from "./owned.ts";
import { choosePort } from "./ports.ts";

export const ROOT = path.resolve(import.meta.dirname, "..", "..");
const DATA = path.join(ROOT, ".data");
const LOCAL_PG_PORT = 55432;
const LOCAL_REDIS_PORT = 56379;

export interface Infra {
  databaseUrl: string;
  redisUrl: string;
  /** Stops what this call started (nothing when the servers were already running). */
  stop(): void;
}

type Log = (line: string) => void;

export async function ensureInfra(env = process.env, log: Log = console.error): Promise<Infra> {
  const stops: Array<() => void> = [];
  const databaseUrl = env.DATABASE_URL ?? (await ensurePostgres(log, stops));
  const redisUrl = env.REDIS_URL ?? (await ensureRedis(log, stops));
  if (env.DATABASE_URL) await waitForPort(env.DATABASE_URL, 5432, "DATABASE_URL");
  if (env.REDIS_URL) await waitForPort(env.REDIS_URL, 6379, "REDIS_URL");
  return {
    databaseUrl,
    redisUrl,
    stop: () => {
      for (const s of stops.reverse()) s();
    },
  };
}

/**
 * The system's Postgres, else this checkout's own project-local one. A project-local server is this
 * checkout's when it runs from this checkout's data directory (its `postmaster.pid` names the port), never
 * because something answers on 55432: that may be another clone's, which this one must not write to.
 */
async function ensurePostgres(log: Log, stops: Array<() => void>): Promise<string> {
  if (await canConnect("127.0.0.1", 5432)) return "postgres://postgres@127.0.0.1:5432/postgres";
  const dir = postgresDataDir();
  const running = runningPostgresPort(dir);
  if (running && (await canConnect("127.0.0.1", running)))
    return `postgres://postgres@127.0.0.1:${running}/postgres`;
  const port = await ownPort(LOCAL_PG_PORT, "project-local Postgres", log);
  const pg = await startPostgres({ dir, port, log });
  stops.push(pg.stop);
  return pg.url;
}

/** The port of the Postgres running from `dir` (line 4 of its pid file), or null when none runs. */
function runningPostgresPort(dir: string): number | null {
  try {
    const [pid, , , port] = readFileSync(path.join(dir, "postmaster.pid"), "utf8").split("\n");
    process.kill(Number(pid), 0);
    return Number(port) || null;
  } catch {
    return null;
  }
}

/** `preferred` when free, else a free port, said in one line. */
async function ownPort(preferred: number, what: string, log: Log): Promise<number> {
  return choosePort({
    preferred,
    what,
    log: (move) => log(`port ${preferred} is in use (another checkout or program): ${move}`),
  });
}

/**
 * Where project-local servers keep their files (data, logs, pid files): `.data/`, unless this runs as root
 * in a folder the `postgres` system user cannot enter (a clone under /root, mode 0700), where initdb would
 * fail with "Permission denied". Then it is a folder of that user's own under /var/tmp, named after the
 * checkout so each clone keeps its own across runs and never meets another's.
 */
export function stateDir(root = ROOT): string {
  const local = path.join(root, ".data");
  if (process.getuid?.() !== 0) return local;
  mkdirSync(local, { recursive: true });
  const reachable = spawnSync("runuser", ["-u", "postgres", "--", "test", "-x", local]);
  if (reachable.status === 0) return local;
  const tag = createHash("sha256").update(root).digest("hex").slice(0, 12);
  return path.join("/var/tmp", `staking-platform-${tag}`);
}

/** Where the project-local Postgres keeps its data (`stateDir()/pg`). */
export function postgresDataDir(root = ROOT): string {
  return path.join(stateDir(root), "pg");
}

export interface LocalServer {
  url: string;
  /** Stops the server cleanly (Postgres: fast shutdown; Redis: SHUTDOWN with the configured persistence). */
  stop(): void;
}

/**
 * Initialises (once) and starts a Postgres in `dir` on `port` (loopback), as the `postgres` user when run
 * as root (initdb and postgres refuse root). `durable: false` turns fsync off, for tests and demos.
 */
export async function startPostgres(options: {
  dir: string;
  port: number;
  log?: Log;
  durable?: boolean;
}): Promise<LocalServer> {
  const { dir, port } = options;
  const log = options.log ?? (() => {});
  const bin = postgresBinDir();
  const asRoot = process.getuid?.() === 0;
  const asPg = (cmd: string, args: string[]): [string, string[]] => {
    const full = path.join(bin, cmd);
    return asRoot ? ["runuser", ["-u", "postgres", "--", full, ...args]] : [full, args];
  };
  // The parent holds the data directory and its log, both the server's own.
  const parent = path.dirname(dir);
  mkdirSync(parent, { recursive: true });
  if (asRoot) execFileSync("chown", ["postgres:postgres", parent]);
  if (!existsSync(path.join(dir, "PG_VERSION"))) {
    log(`initialising project-local Postgres in ${dir}`);
    mkdirSync(dir, { recursive: true, mode: 0o700 });
    if (asRoot) execFileSync("chown", ["-R", "postgres:postgres", dir]);
    run(...asPg("initdb", ["-D", dir, "-U", "postgres", "--auth=trust", "-E", "UTF8"]));
  }
  log(`starting project-local Postgres on port ${port}`);
  const logFile = path.join(parent, `pg-${port}.log`);
  const durability = options.durable ? "" : " -c fsync=off -c synchronous_commit=off";
  // TCP only (`-k ''`: no Unix socket, so no lock file in the system temp directory, which every copy of
  // the project on the host shares, even across network namespaces).
  const opts = `-p ${port} -h 127.0.0.1 -k ''${durability}`;
  try {
    run(...asPg("pg_ctl", ["-D", dir, "-o", opts, "-l", logFile, "-w", "start"]));
  } catch (err) {
    throw new Error(`${(err as Error).message.trim()}\n${tail(logFile)}`);
  }
  // pg_ctl daemonises the server (a session of its own): it is owned by pid, stopped in fast mode.
  const pid = Number(readFileSync(path.join(dir, "postmaster.pid"), "utf8").split("\n")[0]);
  own(pid, "SIGINT");
  const url = `postgres://postgres@127.0.0.1:${port}/postgres`;
  await waitForPort(url, port, "project-local Postgres");
  return {
    url,
    stop: () => {
      spawnSync(...asPg("pg_ctl", ["-D", dir, "-m", "fast", "-w", "stop"]));
      release(pid);
    },
  };
}

/** The last lines of a server's log, named, for an error message that says where to look. */
function tail(file: string, lines = 15): string {
  const text = existsSync(file)
    ? readFileSync(file, "utf8").trimEnd().split("\n").slice(-lines).join("\n")
    : "";
  return `last lines of ${file}:\n${text || "(empty)"}`;
}

/** The system's Redis, else this checkout's own: one whose directory is this checkout's (`CONFIG GET dir`). */
async function ensureRedis(log: Log, stops: Array<() => void>): Promise<string> {
  if (await canConnect("127.0.0.1", 6379)) return "redis://127.0.0.1:6379";
  const dir = path.join(DATA, "redis");
  const url = `redis://127.0.0.1:${LOCAL_REDIS_PORT}`;
  if ((await canConnect("127.0.0.1", LOCAL_REDIS_PORT)) && redisDir(LOCAL_REDIS_PORT) === dir) return url;
  const port = await ownPort(LOCAL_REDIS_PORT, "project-local Redis", log);
  const redis = await startRedis({ dir, port, log });
  stops.push(redis.stop);
  return redis.url;
}

/** The working directory of the Redis on `port` (where its AOF lives), or null. */
function redisDir(port: number): string | null {
  const r = spawnSync("redis-cli", ["-p", String(port), "--raw", "config", "get", "dir"], {
    encoding: "utf8",
    timeout: 2000,
  });
  return r.status === 0 ? (r.stdout.trim().split("\n")[1] ?? null) : null;
}

/**
 * The Redis persistence of the ledger's hot path (docs/gateway.md, "Redis durability"): an append-only file, and
 * how often it is fsynced. `always` loses no acknowledged write even when the machine fails (production);
 * `everysec` loses none when only Redis dies, up to about a second of writes when the machine does
 * (`npm start`, the project-local test Redis).
 */
export type RedisDurability = "always" | "everysec";

export function redisPersistenceArgs(fsync: RedisDurability): string[] {
  return ["--appendonly", "yes", "--appendfsync", fsync, "--save", ""];
}

/**
 * Starts redis-server in `dir` (its AOF and log live there) on `port` (loopback), as an owned child
 * (scripts/lib/owned.ts): it dies with this process, and a start that fails (a port taken) fails at once
 * with the log's last lines instead of waiting for a port that never answers.
 */
export async function startRedis(options: {
  dir: string;
  port: number;
  log?: Log;
  fsync?: RedisDurability;
  /** More redis-server options (a cluster node's). */
  args?: string[];
}): Promise<LocalServer & { pid(): number }> {
  const { dir, port } = options;
  mkdirSync(dir, { recursive: true });
  options.log?.(`starting project-local Redis in ${dir}`);
  const logFile = path.join(dir, `redis-${port}.log`);
  const child = spawnOwned(
    "redis-server",
    [
      "--port",
      String(port),
      "--bind",
      "127.0.0.1",
      ...redisPersistenceArgs(options.fsync ?? "everysec"),
      "--dir",
      dir,
      "--logfile",
      logFile,
      ...(options.args ?? []),
    ],
    { stdio: "ignore" },
  );
  let exited = false;
  child.once("exit", () => {
    exited = true;
  });
  const url = `redis://127.0.0.1:${port}`;
  await waitUntil(async () => {
    if (exited) throw new Error(`redis-server exited at start\n${tail(logFile)}`);
    return canConnect("127.0.0.1", port);
  }, `project-local Redis on ${port}`);
  return {
    url,
    pid: () => child.pid as number,
    stop: () => void spawnSync("redis-cli", ["-p", String(port), "shutdown"]),
  };
}

function postgresBinDir(): string {
  const root = "/usr/lib/postgresql";
  if (existsSync(root)) {
    const versions = readdirSync(root).sort((a, b) => Number(b) - Number(a));
    for (const v of versions)
      if (existsSync(path.join(root, v, "bin", "initdb"))) return path.join(root, v, "bin");
  }
  const which = spawnSync("sh", ["-c", "command -v initdb"], { encoding: "utf8" }).stdout.trim();
  if (which) return path.dirname(which);
  throw new Error(
    "Postgres is not reachable and no initdb was found: install PostgreSQL or set DATABASE_URL",
  );
}

function run(cmd: string, args: string[]): void {
  const r = spawnSync(cmd, args, { stdio: ["ignore", "ignore", "pipe"], encoding: "utf8" });
  if (r.status !== 0) throw new Error(`${cmd} ${args.join(" ")} failed: ${r.stderr || r.error?.message}`);
}

export function canConnect(host: string, port: number, timeoutMs = 500): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host, port });
    const done = (ok: boolean) => {
      socket.destroy();
      resolve(ok);
    };
    socket.setTimeout(timeoutMs, () => done(false));
    socket.once("connect", () => done(true));
    socket.once("error", () => done(false));
  });
}

export async function waitForPort(url: string, defaultPort: number, what: string): Promise<void> {
  const u = new URL(url);
  const port = Number(u.port || defaultPort);
  const host = u.hostname || "127.0.0.1";
  await waitUntil(() => canConnect(host, port), `${what} at ${host}:${port} to answer`);
}

/**
 * How long a server or child may take to be ready. One that fails exits (or its start command fails), and
 * that fails the start at once; this bound only ends a start that hangs, so it is generous and follows the
 * machine: `STARTUP_LIMIT_MS` (default 240 s, below the test runner's 300 s per test) for a slow host.
 */
export function startupLimitMs(env = process.env): number {
  const ms = Number(env.STARTUP_LIMIT_MS);
  return Number.isInteger(ms) && ms > 0 ? ms : 240_000;
}

/** Polls `check` every 100 ms until it holds, for at most `startupLimitMs()`. */
export async function waitUntil(check: () => boolean | Promise<boolean>, what: string): Promise<void> {
  const deadline = Date.now() + startupLimitMs();
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what} (STARTUP_LIMIT_MS)`);
    await new Promise((r) => setTimeout(r, 100));
  }
}
