/**
 * Makes sure Postgres and Redis answer. `DATABASE_URL` / `REDIS_URL` win when set; otherwise the local
 * servers on their standard ports are used, and when none answers, project-local servers are started under
 * `.data/` from the system's binaries (on their own ports, so they never clobber a developer's servers).
 */
import { execFileSync, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync } from "node:fs";
import net from "node:net";
import path from "node:path";

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

async function ensurePostgres(log: Log, stops: Array<() => void>): Promise<string> {
  if (await canConnect("127.0.0.1", 5432)) return "postgres://postgres@127.0.0.1:5432/postgres";
  const url = `postgres://postgres@127.0.0.1:${LOCAL_PG_PORT}/postgres`;
  if (await canConnect("127.0.0.1", LOCAL_PG_PORT)) return url;
  const bin = postgresBinDir();
  const dir = path.join(DATA, "pg");
  // initdb and postgres refuse to run as root: run them as the `postgres` system user then.
  const asPg = (cmd: string, args: string[]) => {
    const full = path.join(bin, cmd);
    return process.getuid?.() === 0 ? ["runuser", ["-u", "postgres", "--", full, ...args]] : [full, args];
  };
  mkdirSync(DATA, { recursive: true });
  if (!existsSync(path.join(dir, "PG_VERSION"))) {
    log(`initialising project-local Postgres in ${dir}`);
    mkdirSync(dir, { recursive: true });
    if (process.getuid?.() === 0) execFileSync("chown", ["-R", "postgres:postgres", dir]);
    run(
      ...(asPg("initdb", ["-D", dir, "-U", "postgres", "--auth=trust", "-E", "UTF8"]) as [string, string[]]),
    );
  }
  log(`starting project-local Postgres on port ${LOCAL_PG_PORT}`);
  const logFile = path.join(DATA, "pg.log");
  if (process.getuid?.() === 0) {
    execFileSync("touch", [logFile]);
    execFileSync("chown", ["postgres", logFile]);
  }
  const opts = `-p ${LOCAL_PG_PORT} -h 127.0.0.1 -k /tmp -c fsync=off -c synchronous_commit=off`;
  run(...(asPg("pg_ctl", ["-D", dir, "-o", opts, "-l", logFile, "-w", "start"]) as [string, string[]]));
  stops.push(() => spawnSync(...(asPg("pg_ctl", ["-D", dir, "-m", "fast", "stop"]) as [string, string[]])));
  await waitForPort(url, LOCAL_PG_PORT, "project-local Postgres");
  return url;
}

async function ensureRedis(log: Log, stops: Array<() => void>): Promise<string> {
  if (await canConnect("127.0.0.1", 6379)) return "redis://127.0.0.1:6379";
  const url = `redis://127.0.0.1:${LOCAL_REDIS_PORT}`;
  if (await canConnect("127.0.0.1", LOCAL_REDIS_PORT)) return url;
  const dir = path.join(DATA, "redis");
  mkdirSync(dir, { recursive: true });
  log(`starting project-local Redis in ${dir}`);
  const pidfile = path.join(dir, "redis.pid");
  run("redis-server", [
    "--port",
    String(LOCAL_REDIS_PORT),
    "--bind",
    "127.0.0.1",
    "--save",
    "",
    "--appendonly",
    "no",
    "--daemonize",
    "yes",
    "--dir",
    dir,
    "--pidfile",
    pidfile,
    "--logfile",
    path.join(DATA, "redis.log"),
  ]);
  stops.push(() => spawnSync("redis-cli", ["-p", String(LOCAL_REDIS_PORT), "shutdown", "nosave"]));
  await waitForPort(url, LOCAL_REDIS_PORT, "project-local Redis");
  return url;
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

async function waitForPort(url: string, defaultPort: number, what: string): Promise<void> {
  const u = new URL(url);
  const port = Number(u.port || defaultPort);
  const host = u.hostname || "127.0.0.1";
  for (let i = 0; i < 100; i++) {
    if (await canConnect(host, port)) return;
    await new Promise((r) => setTimeout(r, 100));
  }
  throw new Error(`${what} at ${host}:${port} does not answer`);
}
