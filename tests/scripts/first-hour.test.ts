import assert from "node:assert/strict";
import { type ChildProcess, spawnSync } from "node:child_process";
import { mkdirSync, rmSync } from "node:fs";
import path from "node:path";
import { after, before, test } from "node:test";
import { ROOT } from "../../scripts/lib/infra.ts";
import { signalGroup, spawnOwned } from "../../scripts/lib/owned.ts";

/**
 * A newcomer's first hour, on whole deployments: two private clones of this repository, each `npm start`ed in
 * a network namespace of its own (free demo ports, one shared system temp directory, both at once), so they
 * never meet the suite's Postgres and Redis nor a developer's `npm start`. Clone A plays the whole first
 * hour (scripts/first-hour.mjs: the five first calls, the Solana snippet of docs/solana-demo.md with a
 * confirmed transaction and rewards, the operator CLI with no variables, a dashboard sign-up, Ctrl-C and
 * `npm start` again on the same data); clone B, started beside it, makes the five first calls.
 *
 * The clones are `git clone --shared` of the committed HEAD (what CI tests), installed from the pnpm store.
 */
const WORK = path.join(ROOT, ".data", "first-hour-test");
const namespaces =
  process.getuid?.() === 0 && spawnSync("unshare", ["-n", "true"], { stdio: "ignore" }).status === 0;
const skip = namespaces
  ? false
  : "needs network namespaces (run as root with `unshare -n`): two deployments on the fixed demo ports of npm start cannot share one network";

const children: ChildProcess[] = [];
after(() => {
  for (const c of children) signalGroup(c, "SIGKILL");
});

function clone(name: string): string {
  const dir = path.join(WORK, name);
  rmSync(dir, { recursive: true, force: true });
  const git = spawnSync("git", ["clone", "--quiet", "--shared", ROOT, dir], { encoding: "utf8" });
  assert.equal(git.status, 0, git.stderr);
  return dir;
}

/** Installs from the local pnpm store (what `npm start` would do, without the network). */
function install(dir: string): Promise<void> {
  return run(dir, "npx", ["--yes", "pnpm@10", "install", "--offline", "--frozen-lockfile"]).then((r) => {
    assert.equal(r.code, 0, `pnpm install in ${dir}:\n${r.output}`);
  });
}

/** Runs a command in its own network namespace (loopback up), as a newcomer's shell would, minus our variables. */
function inNamespace(dir: string, command: string) {
  return run(dir, "unshare", ["-n", "sh", "-c", `ip link set lo up && exec ${command}`]);
}

function run(dir: string, cmd: string, args: string[]): Promise<{ code: number | null; output: string }> {
  const env = {
    PATH: process.env.PATH,
    HOME: process.env.HOME,
    LANG: process.env.LANG ?? "C.UTF-8",
    // Rewards after seconds instead of a minute (npm start's default epoch is 30 s).
    SOLANA_EPOCH_MS: "3000",
    // A week of Polygon checkpoints built at each start instead of a month (devnet/polygon/main.ts): the
    // first calls need an APR, not 30 days of it; the build is most of a start's CPU on two cores.
    HISTORY_DAYS: "8",
  } as NodeJS.ProcessEnv;
  const child = spawnOwned(cmd, args, { cwd: dir, env, stdio: ["ignore", "pipe", "pipe"] });
  children.push(child);
  let output = "";
  child.stdout?.on("data", (d) => {
    output += d;
  });
  child.stderr?.on("data", (d) => {
    output += d;
  });
  return new Promise((resolve) => child.once("exit", (code) => resolve({ code, output })));
}

let a: string;
let b: string;
before(async () => {
  if (skip) return;
  mkdirSync(WORK, { recursive: true });
  a = clone("a");
  b = clone("b");
  await Promise.all([install(a), install(b)]);
});

test("two clones come up at once in their own namespaces; one plays the first hour and restarts on its data", {
  skip,
}, async () => {
  const t0 = Date.now();
  const [full, quick] = await Promise.all([
    inNamespace(a, "node scripts/first-hour.mjs"),
    inNamespace(b, "node scripts/first-hour.mjs --quick"),
  ]);
  const steps = (out: string) => out.split("\n").filter((l) => l.startsWith("first-hour ["));
  console.log(`first hour (clone A):\n${steps(full.output).join("\n")}`);
  console.log(`five first calls (clone B):\n${steps(quick.output).join("\n")}`);
  console.log(`both: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  assert.equal(quick.code, 0, quick.output.slice(-4000));
  assert.equal(full.code, 0, full.output.slice(-4000));
  for (const name of [
    "Hyperliquid delegate",
    "Ethereum provision",
    "Polygon APR",
    "Sui daily rewards",
    "gateway paid request",
  ]) {
    assert.match(quick.output, new RegExp(`${name}: 200`), `clone B: ${name}`);
    assert.match(full.output, new RegExp(`${name}: 200`), `clone A: ${name}`);
  }
  // The Solana snippet: a confirmed stake, then rewards the devnet paid.
  assert.match(full.output, /staked into \S+, signature \S+/);
  assert.match(full.output, /rewards: 0\.\d*[1-9]\d* SOL/);
  assert.match(full.output, /operator CLI, no variables set: orgs list names \S+/);
  // Ctrl-C, npm start again on the same data: the user signed up before logs in.
  assert.match(full.output, /log-in of the user signed up before the restart: 200/);
  // The demo keys printed before the restart still work after it.
  assert.match(full.output, /the staking key printed before the restart: 200/);
  assert.match(full.output, /the gateway key printed before the restart: 200/);
  assert.match(full.output, /the first hour passed/);
  assert.match(quick.output, /the first hour passed/);
  // Kept on failure, to read the clones' logs (.data/pg-*.log); removed once everything passed.
  rmSync(WORK, { recursive: true, force: true });
});
