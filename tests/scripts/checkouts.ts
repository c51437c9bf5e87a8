import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import path from "node:path";
import postgres from "postgres";
import { ROOT } from "../../scripts/lib/infra.ts";
import { signalGroup, spawnOwned } from "../../scripts/lib/owned.ts";
import { eventually } from "../helpers/eventually.ts";

/**
 * Clones of this repository started as a newcomer starts them (tests/scripts/first-hour.test.ts): `git
 * clone --shared` of the committed HEAD (what CI tests), installed from the pnpm store, run with a
 * newcomer's environment, their processes, databases and Redis keys gone when the test ends.
 */
export const WORK = path.join(ROOT, ".data", "first-hour-test");
const STOP_WITHIN_MS = 30_000;
const children: ChildProcess[] = [];
let dirs: string[] = [];

/** Kills what the test started and drops the clones' own databases and Redis keys. */
export async function cleanUp(): Promise<void> {
  for (const c of children) signalGroup(c, "SIGKILL");
  await dropClonesData();
}

/** A newcomer's shell: no variable of ours (the runner's DATABASE_URL, REDIS_PREFIX, …). */
export const ENV = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  LANG: process.env.LANG ?? "C.UTF-8",
  // A week of Polygon checkpoints built at each start instead of a month (devnet/polygon/main.ts): the
  // first calls need an APR, not 30 days of it; the build is most of a start's CPU on two cores.
  HISTORY_DAYS: "8",
} as NodeJS.ProcessEnv;

/** Clones of HEAD under WORK, installed side by side from the local pnpm store (no network). */
export async function clones(...names: string[]): Promise<string[]> {
  mkdirSync(WORK, { recursive: true });
  dirs = names.map((name) => {
    const dir = path.join(WORK, name);
    rmSync(dir, { recursive: true, force: true });
    const git = spawnSync("git", ["clone", "--quiet", "--shared", ROOT, dir], { encoding: "utf8" });
    assert.equal(git.status, 0, git.stderr);
    return dir;
  });
  await Promise.all(
    dirs.map(async (dir) => {
      const r = await run(dir, "npx", ["--yes", "pnpm@10", "install", "--offline", "--frozen-lockfile"]);
      assert.equal(await r.exited, 0, `pnpm install in ${dir}:\n${r.out()}${r.err()}`);
    }),
  );
  return dirs;
}

export interface Deployment {
  npm: ChildProcess;
  out(): string;
  err(): string;
  exited: Promise<number | null>;
}

/** A command in a clone, as typed in a shell (its own process group, killed when the test ends). */
export function run(dir: string, cmd: string, args: string[], env: NodeJS.ProcessEnv = {}): Deployment {
  const npm = spawnOwned(cmd, args, {
    cwd: dir,
    env: { ...ENV, ...env },
    stdio: ["ignore", "pipe", "pipe"],
  });
  children.push(npm);
  let out = "";
  let err = "";
  npm.stdout?.on("data", (d) => {
    out += d;
  });
  npm.stderr?.on("data", (d) => {
    err += d;
  });
  const exited = new Promise<number | null>((resolve) => npm.once("exit", (code) => resolve(code)));
  return { npm, out: () => out, err: () => err, exited };
}

/** `npm start` as typed in a shell: npm, its `sh -c`, the bootstrap, the entry and what that starts. */
export const npmStart = (dir: string, env: NodeJS.ProcessEnv = {}) => run(dir, "npm", ["start"], env);

/** Its banner, once printed; fails at once if it exits first. */
export async function banner(d: Deployment): Promise<string> {
  let code: number | null | undefined;
  void d.exited.then((c) => {
    code = c;
  });
  return eventually(
    () => {
      if (code !== undefined) throw Object.assign(new Error(`npm start exited with ${code}:\n${d.err()}`));
      return d.out().includes("stops everything.") && d.out();
    },
    { what: "npm start's banner", timeoutMs: 240_000, intervalMs: 250 },
  ).catch((err: Error) => {
    throw new Error(`${err.message}\n${d.err().slice(-4000)}`);
  });
}

const grab = (text: string, re: RegExp, what: string) => {
  const m = re.exec(text);
  assert.ok(m?.[1], `the banner shows ${what}:\n${text}`);
  return m[1];
};
export const keysOf = (b: string) => ({
  staking: grab(b, /Demo staking API key[^:]*: (stk_\S+)/, "the staking key"),
  gateway: grab(b, /Demo gateway key[^:]*: (gwk_\S+)/, "the gateway key"),
  api: grab(b, /control plane\s+(http:\/\/\S+)/, "the control plane"),
  gatewayUrl: grab(b, /\n {2}gateway\s+(http:\/\/\S+)/, "the gateway"),
});

/** Every process under `pid` (the `ps` tree), `pid` included. */
export function tree(pid: number): number[] {
  const ps = spawnSync("ps", ["-eo", "pid=,ppid="], { encoding: "utf8" }).stdout;
  const kids = new Map<number, number[]>();
  for (const line of ps.trim().split("\n")) {
    const [p, pp] = line.trim().split(/\s+/).map(Number) as [number, number];
    kids.set(pp, [...(kids.get(pp) ?? []), p]);
  }
  const all = [pid];
  for (let i = 0; i < all.length; i++) all.push(...(kids.get(all[i]!) ?? []));
  return all;
}
export const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Signals npm's pid alone (as a supervisor does) and waits until every process it started is gone. */
export async function stopWith(d: Deployment, signal: NodeJS.Signals): Promise<number> {
  const pids = tree(d.npm.pid!);
  assert.ok(pids.length > 10, `npm start runs its processes: ${pids.length}`);
  const t0 = Date.now();
  d.npm.kill(signal);
  await eventually(() => pids.every((p) => !alive(p)), {
    what: `every process of npm start to be gone after ${signal} (left: ${pids.filter(alive).join(" ")})`,
    timeoutMs: STOP_WITHIN_MS,
    intervalMs: 100,
  });
  return Date.now() - t0;
}

/** The banner's calls, each a line starting with `curl` or `X=$(curl`, with its `\` continuations. */
export function printedCalls(text: string): string[] {
  const calls: string[] = [];
  let current: string | null = null;
  for (const line of text.split("\n")) {
    if (current !== null) current += `\n${line}`;
    else if (/^ {2}(\w+=\$\()?curl /.test(line)) current = line;
    else continue;
    if (!line.trimEnd().endsWith("\\")) {
      calls.push(current);
      current = null;
    }
  }
  return calls;
}

/**
 * Pastes each call into one shell, twice (a variable one call sets is there for the next, as in a
 * terminal). A 503 (an indexer's first pass, which the banner announces) is pasted again until it passes;
 * both pastes that count must answer 2xx.
 */
export async function pasteTwice(calls: string[]): Promise<string[]> {
  const sh = spawn("sh", ["-s"], { env: ENV, stdio: ["pipe", "pipe", "pipe"] });
  children.push(sh);
  let err = "";
  let out = "";
  sh.stderr.on("data", (d) => {
    err += d;
  });
  sh.stdout.on("data", (d) => {
    out += d;
  });
  // curl's status on stderr, its body where the call sends it (a pipe, a variable).
  sh.stdin.write(`curl() { command curl -w '%{stderr}HTTP %{http_code}\\n' "$@"; }\n`);
  let n = 0;
  const paste = async (call: string) => {
    const marker = `PASTED-${++n}`;
    const [from, outFrom] = [err.length, out.length];
    sh.stdin.write(`${call}\necho ${marker} >&2\n`);
    await eventually(() => err.includes(marker, from), { what: `the shell to run ${call}` });
    const status = Number(/HTTP (\d{3})/.exec(err.slice(from))?.[1]);
    return { status, body: out.slice(outFrom, outFrom + 300) };
  };
  const report: string[] = [];
  try {
    for (const call of calls) {
      const first = await eventually(
        async () => {
          const r = await paste(call);
          return r.status !== 503 && r;
        },
        // An indexer's first pass waits for the devnet's chain to finalize its first epochs: on a busy
        // machine that is minutes, not the default minute.
        { what: `${call} to answer past 503`, intervalMs: 1000, timeoutMs: 300_000 },
      );
      const second = await paste(call);
      for (const r of [first, second])
        assert.ok(r.status >= 200 && r.status < 300, `${call}\nanswered ${r.status}: ${r.body}`);
      report.push(`${first.status} ${second.status}  ${call.trim().split("\n")[0]!.slice(0, 90)}`);
    }
  } finally {
    sh.stdin.end();
  }
  return report;
}

export const checkoutOf = (dir: string) =>
  JSON.parse(readFileSync(path.join(dir, ".data", "checkout.json"), "utf8")) as {
    id: string;
    database: string;
    redisPrefix: string;
  };
export const envOf = (dir: string) =>
  Object.fromEntries(
    readFileSync(path.join(dir, ".data", "env"), "utf8")
      .split("\n")
      .map((l) => /^([A-Z_]+)=(.*)$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );

/** The demo's keys and accounts as stored: what a second checkout must leave as it found them. */
export async function snapshot(databaseUrl: string) {
  const sql = postgres(databaseUrl, { max: 1, onnotice: () => {} });
  try {
    const keys = await sql`select id, revoked_at from api_keys order by id`;
    const gatewayKeys = await sql`select id, active from gateway_api_keys order by id`;
    const orgs = await sql`select id, status from organisations order by id`;
    return JSON.stringify({ keys, gatewayKeys, orgs });
  } finally {
    await sql.end();
  }
}

async function dropClonesData() {
  for (const dir of dirs) {
    let env: Record<string, string>;
    try {
      env = envOf(dir);
    } catch {
      continue;
    }
    const db = new URL(env.DATABASE_URL!);
    const name = db.pathname.slice(1);
    db.pathname = "/postgres";
    const admin = postgres(db.toString(), { max: 1, onnotice: () => {} });
    await admin.unsafe(`drop database if exists "${name}" with (force)`).catch(() => {});
    await admin.end();
    const port = new URL(env.REDIS_URL!).port || "6379";
    spawnSync("sh", [
      "-c",
      `redis-cli -p ${port} --scan --pattern '${env.REDIS_PREFIX}*' | xargs -r -n 500 redis-cli -p ${port} unlink >/dev/null`,
    ]);
  }
}

/** The last lines of each process's log in each clone: what a failure is read from where only its output is kept. */
export function logTails(): string {
  const tails: string[] = [];
  for (const dir of dirs) {
    const logs = path.join(dir, ".data", "logs");
    if (!existsSync(logs)) continue;
    for (const file of readdirSync(logs).sort()) {
      const lines = readFileSync(path.join(logs, file), "utf8").trimEnd().split("\n").slice(-8);
      tails.push(`--- ${path.basename(dir)}/.data/logs/${file}\n${lines.join("\n")}`);
    }
  }
  return tails.join("\n");
}
