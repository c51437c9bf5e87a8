import assert from "node:assert/strict";
import { type ChildProcess, spawn, spawnSync } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, readFileSync, rmSync } from "node:fs";
import net from "node:net";
import path from "node:path";
import { after, before, type TestContext, test } from "node:test";
import postgres from "postgres";
import { ROOT } from "../../scripts/lib/infra.ts";
import { signalGroup, spawnOwned } from "../../scripts/lib/owned.ts";
import { eventually } from "../helpers/eventually.ts";

/**
 * A newcomer's second pass, on one host and one network (no namespaces): two clones of this repository
 * `npm start`ed one after the other, on the same default ports and the same Postgres and Redis (the
 * system's when they answer, as a newcomer's would be). The second must never touch the first's data: it
 * runs beside it on other ports (or, with a port the user fixed, is refused in one line), with a database
 * and a Redis prefix of its own. Then: SIGINT / SIGTERM to the `npm start` pid (npm's, not the group) stop
 * every process it started within 30 s; every call the banner prints answers 2xx pasted, and pasted again.
 * (A restart keeping the demo keys and calls: scripts/first-hour.mjs, in tests/scripts/first-hour.test.ts.)
 *
 * The clones are `git clone --shared` of the committed HEAD, installed from the pnpm store.
 */
const WORK = path.join(ROOT, ".data", "two-checkouts-test");
const STOP_WITHIN_MS = 30_000;
const children: ChildProcess[] = [];
after(async () => {
  for (const c of children) signalGroup(c, "SIGKILL");
  // The clones' own databases and Redis keys (named by their checkout ids), on the servers they used.
  await dropClonesData();
});

/** A newcomer's shell: no variable of ours (the runner's DATABASE_URL, REDIS_PREFIX, …). */
const ENV = {
  PATH: process.env.PATH,
  HOME: process.env.HOME,
  LANG: process.env.LANG ?? "C.UTF-8",
  // A week of Polygon checkpoints built at each start instead of a month (devnet/polygon/main.ts).
  HISTORY_DAYS: "8",
} as NodeJS.ProcessEnv;

function clone(name: string): string {
  const dir = path.join(WORK, name);
  rmSync(dir, { recursive: true, force: true });
  const git = spawnSync("git", ["clone", "--quiet", "--shared", ROOT, dir], { encoding: "utf8" });
  assert.equal(git.status, 0, git.stderr);
  const pnpm = spawnSync("npx", ["--yes", "pnpm@10", "install", "--offline", "--frozen-lockfile"], {
    cwd: dir,
    env: ENV,
    encoding: "utf8",
  });
  assert.equal(pnpm.status, 0, `pnpm install in ${dir}:\n${pnpm.stdout}${pnpm.stderr}`);
  return dir;
}

interface Deployment {
  npm: ChildProcess;
  out(): string;
  err(): string;
  exited: Promise<number | null>;
}

/** `npm start` as typed in a shell: npm, its `sh -c`, the bootstrap, the entry and what that starts. */
function npmStart(dir: string, env: NodeJS.ProcessEnv = {}): Deployment {
  const npm = spawnOwned("npm", ["start"], {
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

/** Its banner, once printed; fails at once if it exits first. */
async function banner(d: Deployment): Promise<string> {
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
const keysOf = (b: string) => ({
  staking: grab(b, /Demo staking API key[^:]*: (stk_\S+)/, "the staking key"),
  gateway: grab(b, /Demo gateway key[^:]*: (gwk_\S+)/, "the gateway key"),
  api: grab(b, /control plane\s+(http:\/\/\S+)/, "the control plane"),
  gatewayUrl: grab(b, /\n {2}gateway\s+(http:\/\/\S+)/, "the gateway"),
});

/** Every process under `pid` (the `ps` tree), `pid` included. */
function tree(pid: number): number[] {
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
const alive = (pid: number) => {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
};

/** Signals npm's pid alone (as a supervisor does) and waits until every process it started is gone. */
async function stopWith(d: Deployment, signal: NodeJS.Signals): Promise<number> {
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
function printedCalls(text: string): string[] {
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
async function pasteTwice(calls: string[]): Promise<string[]> {
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

const checkoutOf = (dir: string) =>
  JSON.parse(readFileSync(path.join(dir, ".data", "checkout.json"), "utf8")) as {
    id: string;
    database: string;
    redisPrefix: string;
  };
const envOf = (dir: string) =>
  Object.fromEntries(
    readFileSync(path.join(dir, ".data", "env"), "utf8")
      .split("\n")
      .map((l) => /^([A-Z_]+)=(.*)$/.exec(l))
      .filter((m) => m !== null)
      .map((m) => [m[1]!, m[2]!]),
  );

/** The demo's keys and accounts as stored: what a second checkout must leave as it found them. */
async function snapshot(databaseUrl: string) {
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

let dirs: string[] = [];
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

let a: string;
let b: string;
before(() => {
  mkdirSync(WORK, { recursive: true });
  a = clone("a");
  b = clone("b");
  dirs = [a, b];
});

/** The last lines of each process's log in each clone: what a failure is read from where only its output is kept. */
function logTails(): string {
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

test("two checkouts on one host: the second never touches the first's data, and runs on ports of its own or is refused in one line; stop means stop; every printed call pastes twice", async (t) => {
  try {
    await twoCheckouts(t);
  } catch (err) {
    (err as Error).message += `\n${logTails()}`;
    throw err;
  }
});

async function twoCheckouts(t: TestContext) {
  const t0 = Date.now();
  // A port the user set for B that another program holds: B is refused in one line (meanwhile A starts).
  const holder = net.createServer();
  await new Promise<void>((resolve) => holder.listen(0, "127.0.0.1", resolve));
  const held = (holder.address() as net.AddressInfo).port;
  const first = npmStart(a);
  const refused = npmStart(b, { CONTROL_PLANE_PORT: String(held) });
  assert.equal(await refused.exited, 1, refused.err());
  holder.close();
  // npm's own lines (its exit report, a warning on its config, an update notice) are not the start's.
  const lines = refused
    .err()
    .split("\n")
    .filter((l) => l.trim() && !/^npm (error|ERR!|warn|WARN|notice)\b/.test(l));
  assert.deepEqual(lines, [
    `npm start: port ${held} (CONTROL_PLANE_PORT, control plane) is in use by another program or checkout: free it or set CONTROL_PLANE_PORT to another port`,
  ]);

  const bannerA = await banner(first);
  const keysA = keysOf(bannerA);
  t.diagnostic(`clone A up in ${((Date.now() - t0) / 1000).toFixed(1)} s at ${keysA.api}`);
  const dataA = envOf(a).DATABASE_URL!;
  const before = await snapshot(dataA);

  // B on the defaults, A running: up on ports of its own with a database and Redis prefix of its own.
  // Meanwhile A's printed calls, each pasted twice.
  const second = npmStart(b);
  const report = await pasteTwice(printedCalls(bannerA));
  t.diagnostic(`clone A's ${report.length} printed calls, pasted twice:\n${report.join("\n")}`);
  assert.ok(report.length >= 15, "the banner prints the calls of every area");
  const keysB = keysOf(await banner(second));
  assert.doesNotMatch(second.err(), /EADDRINUSE|\n\s+at /, "no raw error, no stack trace");
  assert.match(
    second.err(),
    /^npm start: default ports in use \(another checkout or program\), this one uses control plane 3000 → \d+/m,
  );
  assert.notEqual(keysB.api, keysA.api);
  assert.notEqual(checkoutOf(b).database, checkoutOf(a).database);
  assert.notEqual(envOf(b).REDIS_PREFIX, envOf(a).REDIS_PREFIX);
  assert.equal(await snapshot(dataA), before, "A's keys and accounts as they were");
  const apr = await fetch(`${keysA.api}/api/apr`, { headers: { "x-api-key": keysA.staking } });
  assert.equal(apr.status, 200, "A's printed key still works");
  const paid = await fetch(`${keysA.gatewayUrl}/gateway/demo/hello`, {
    headers: { "x-gateway-api-key": keysA.gateway, "idempotency-key": `two-checkouts-${Date.now()}` },
  });
  assert.equal(paid.status, 200, "A's printed gateway key still works");
  const crossed = await fetch(`${keysB.api}/api/apr`, { headers: { "x-api-key": keysA.staking } });
  assert.equal(crossed.status, 401, "B's deployment does not know A's key: separate data");

  // Stop means stop: SIGTERM to B's npm pid, SIGINT to A's.
  t.diagnostic(`clone B stopped by SIGTERM in ${await stopWith(second, "SIGTERM")} ms`);
  t.diagnostic(`clone A stopped by SIGINT in ${await stopWith(first, "SIGINT")} ms`);
  t.diagnostic(`all: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await dropClonesData();
  rmSync(WORK, { recursive: true, force: true });
}
