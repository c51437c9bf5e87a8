import assert from "node:assert/strict";
import { readFileSync, rmSync } from "node:fs";
import net from "node:net";
import { after, before, type TestContext, test } from "node:test";
import { eventually } from "../helpers/eventually.ts";
import {
  banner,
  checkoutOf,
  cleanUp,
  clones,
  type Deployment,
  envOf,
  keysOf,
  logTails,
  npmStart,
  pasteTwice,
  printedCalls,
  run,
  snapshot,
  stopWith,
  tree,
  WORK,
} from "./checkouts.ts";

/**
 * A newcomer's first hour and second checkout, on two clones of this repository on one host and network,
 * with the system's Postgres and Redis (tests/scripts/checkouts.ts): each clone's install, build and
 * start is paid once for every check below.
 *
 * - Clone A is `npm start`ed; clone B, given a port the user set that another program holds, is refused in
 *   one line meanwhile. Every call A's banner prints answers 2xx pasted into one shell, and pasted again.
 * - Clone B plays the whole first hour beside A (scripts/first-hour.mjs, on the ports its start moved to):
 *   the five first calls, the Solana snippet of docs/solana-demo.md with a confirmed transaction and
 *   rewards, the operator CLI with no variables, a dashboard sign-up, Ctrl-C and `npm start` again on the
 *   same data. B never touches A's data: a database and Redis prefix of its own, A's keys and accounts as
 *   they were, A's keys unknown to B. Every process of B's first hour is gone once it ends.
 * - B `npm start`ed once more beside A (its data kept); then SIGTERM to B's npm pid alone and SIGINT to A's
 *   (as a supervisor sends them): every process each started is gone within 30 s.
 */
after(cleanUp);

let a: string;
let b: string;
/** Clone B's first hour so far (stdout, then its npm start's stderr), for a failure's message. */
let hourOutput = () => "(not started)";
before(async () => {
  [a, b] = (await clones("a", "b")) as [string, string];
});

test("two checkouts on one host: the second plays the first hour beside the first and never touches its data, or is refused in one line on a port the user set; every printed call pastes twice; stop means stop", async (t) => {
  try {
    await firstHourBesideAnother(t);
  } catch (err) {
    (err as Error).message += `\n${logTails()}\n--- clone B's first hour:\n${hourOutput().slice(-6000)}`;
    throw err;
  }
});

async function firstHourBesideAnother(t: TestContext) {
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

  // B's first hour beside A (its `npm start`'s own stderr shown: FIRST_HOUR_VERBOSE); meanwhile A's
  // printed calls, each pasted twice.
  const hour = run(b, "node", ["scripts/first-hour.mjs"], {
    // Rewards after seconds instead of a minute (npm start's default epoch is 30 s).
    SOLANA_EPOCH_MS: "3000",
    FIRST_HOUR_VERBOSE: "1",
  });
  hourOutput = () => `${hour.out()}\n${hour.err()}`;
  const hourPids = watchTree(hour);
  // As soon as B is up (its first hour restarts it later): A's staking key asked of B's control plane.
  const crossedB = (async () => {
    const apiB = await eventually(() => /first-hour \[[\d.]+ s\] up at (\S+);/.exec(hour.out())?.[1], {
      what: "clone B's first hour to have started npm start",
      timeoutMs: 240_000,
      intervalMs: 250,
    });
    const res = await fetch(`${apiB}/api/apr`, { headers: { "x-api-key": keysA.staking } });
    return { apiB, crossed: res.status };
  })();
  const [report, { apiB, crossed }] = await Promise.all([pasteTwice(printedCalls(bannerA)), crossedB]);
  t.diagnostic(`clone A's ${report.length} printed calls, pasted twice:\n${report.join("\n")}`);
  assert.ok(report.length >= 15, "the banner prints the calls of every area");

  // B up beside A: on ports of its own with a database and Redis prefix of its own.
  assert.doesNotMatch(hour.err(), /EADDRINUSE|\n\s+at /, "no raw error, no stack trace");
  assert.match(
    hour.err(),
    /^npm start: default ports in use \(another checkout or program\), this one uses control plane 3000 → \d+/m,
  );
  assert.notEqual(apiB, keysA.api);
  assert.notEqual(checkoutOf(b).database, checkoutOf(a).database);
  assert.notEqual(envOf(b).REDIS_PREFIX, envOf(a).REDIS_PREFIX);
  assert.equal(await snapshot(dataA), before, "A's keys and accounts as they were");
  const apr = await fetch(`${keysA.api}/api/apr`, { headers: { "x-api-key": keysA.staking } });
  assert.equal(apr.status, 200, "A's printed key still works");
  const paid = await fetch(`${keysA.gatewayUrl}/gateway/demo/hello`, {
    headers: { "x-gateway-api-key": keysA.gateway, "idempotency-key": `two-checkouts-${Date.now()}` },
  });
  assert.equal(paid.status, 200, "A's printed gateway key still works");
  assert.equal(crossed, 401, "B's deployment does not know A's key: separate data");

  const code = await hour.exited;
  const steps = hour
    .out()
    .split("\n")
    .filter((l) => l.startsWith("first-hour ["));
  t.diagnostic(`first hour (clone B):\n${steps.join("\n")}`);
  assert.equal(code, 0, `${hour.out().slice(-4000)}\n${hour.err().slice(-4000)}`);
  const out = hour.out();
  for (const name of [
    "Hyperliquid delegate",
    "Ethereum provision",
    "Polygon APR",
    "Sui daily rewards",
    "gateway paid request",
  ])
    assert.match(out, new RegExp(`${name}: 200`), `clone B: ${name}`);
  // The Solana snippet: a confirmed stake, then rewards the devnet paid.
  assert.match(out, /staked into \S+, signature \S+/);
  assert.match(out, /rewards: 0\.\d*[1-9]\d* SOL/);
  assert.match(out, /operator CLI, no variables set: orgs list names \S+/);
  // Ctrl-C, npm start again on the same data: the user signed up before logs in.
  assert.match(out, /log-in of the user signed up before the restart: 200/);
  // The demo keys printed before the restart still work after it.
  assert.match(out, /the staking key printed before the restart: 200/);
  assert.match(out, /the gateway key printed before the restart: 200/);
  assert.match(out, /the first hour passed/);
  // Its Ctrl-C stopped every process either of its starts ran.
  const left = await hourPids.gone();
  assert.deepEqual(left, [], "every process of the first hour's npm starts gone after its Ctrl-C");

  // B once more beside A, on its kept data; then stop means stop: SIGTERM to B's npm pid, SIGINT to A's.
  const second = npmStart(b);
  const keysB = keysOf(await banner(second));
  assert.notEqual(keysB.api, keysA.api);
  const [termMs, intMs] = await Promise.all([stopWith(second, "SIGTERM"), stopWith(first, "SIGINT")]);
  t.diagnostic(`clone B stopped by SIGTERM in ${termMs} ms, clone A by SIGINT in ${intMs} ms`);
  t.diagnostic(`all: ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  await cleanUp();
  // Kept on failure, to read the clones' logs; removed once everything passed.
  rmSync(WORK, { recursive: true, force: true });
}

/**
 * Every process seen under a command while it runs (its `ps` tree, sampled each second); `gone()` waits,
 * once it exited, until none of them is left, and names any still alive after 30 s. A process is known by
 * its pid and start time: pids are reused within minutes on a busy host (pid_max may be 32768).
 */
function watchTree(d: Deployment) {
  const seen = new Map<number, string>();
  const startOf = (pid: number) => {
    try {
      // Field 22 of /proc/<pid>/stat, counted after the command's closing parenthesis.
      return readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ")[19];
    } catch {
      return undefined;
    }
  };
  const sample = setInterval(() => {
    for (const pid of tree(d.npm.pid!)) {
      const start = startOf(pid);
      if (start && pid !== d.npm.pid) seen.set(pid, start);
    }
  }, 1000);
  void d.exited.then(() => clearInterval(sample));
  const left = () => [...seen].filter(([pid, start]) => startOf(pid) === start).map(([pid]) => pid);
  return {
    async gone(): Promise<number[]> {
      await d.exited;
      await eventually(() => left().length === 0, {
        what: "the first hour's processes to be gone",
        timeoutMs: 30_000,
        intervalMs: 100,
      }).catch(() => {});
      return left();
    },
  };
}
