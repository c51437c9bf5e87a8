// `node scripts/first-hour.mjs`: plays a newcomer's first hour against this clone, and fails loudly where
// the newcomer would be stuck. Plain JavaScript on purpose (like scripts/up.mjs): Node and this clone only.
//
//   1. `npm start` (scripts/up.mjs), waiting for its banner;
//   2. the five first calls of the README, with the keys the banner printed;
//   3. the Solana sign-and-send snippet of docs/solana-demo.md, run as written: a confirmed transaction,
//      then rewards once an epoch has paid them;
//   4. the operator CLI with no DATABASE_URL / REDIS_URL / REDIS_PREFIX set (it finds `.data/env`);
//   5. a sign-up through the dashboard's API, Ctrl-C, `npm start` again: it comes up on the same data, the
//      new user logs in, and the demo keys printed before the restart are printed again and still work.
//
// `--quick` stops after step 2. It calls the URLs the banner prints, so it also runs beside another
// checkout's `npm start` (which moves this one off the default ports; tests/scripts/first-hour.test.ts
// runs it so). SOLANA_EPOCH_MS shortens the wait for rewards (npm start's default is 30 s an epoch).
import { spawn, spawnSync } from "node:child_process";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";

const ROOT = path.resolve(import.meta.dirname, "..");
const quick = process.argv.includes("--quick");
/** The longest any one step may take; generous, as `npm start` on a busy machine takes its time. */
const STEP_MS = Number(process.env.FIRST_HOUR_STEP_MS ?? 240_000);
const started = Date.now();

const say = (line) => console.log(`first-hour [${((Date.now() - started) / 1000).toFixed(1)} s] ${line}`);

async function until(what, check, ms = STEP_MS) {
  const deadline = Date.now() + ms;
  let last;
  for (;;) {
    try {
      const v = await check();
      if (v) return v;
    } catch (err) {
      last = err;
      if (err?.fatal) throw err;
    }
    if (Date.now() > deadline)
      throw new Error(`timed out waiting for ${what}${last ? `: ${last.message}` : ""}`);
    await new Promise((r) => setTimeout(r, 500));
  }
}

/** `npm start` as a newcomer runs it; resolves with its banner once it printed the last line. */
async function npmStart() {
  const child = spawn(process.execPath, [path.join(ROOT, "scripts/up.mjs")], {
    cwd: ROOT,
    env: process.env,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let out = "";
  let err = "";
  child.stdout.on("data", (d) => {
    out += d;
  });
  child.stderr.on("data", (d) => {
    err = (err + d).slice(-6000);
    if (process.env.FIRST_HOUR_VERBOSE) process.stderr.write(d);
  });
  const exited = new Promise((resolve) => child.once("exit", (code) => resolve(code)));
  await until("npm start's banner", () => {
    if (child.exitCode !== null)
      throw Object.assign(new Error(`npm start exited with ${child.exitCode}:\n${err}`), { fatal: true });
    return out.includes("stops everything.");
  });
  return {
    banner: out,
    /** Ctrl-C, as a newcomer stops it; resolves with its exit code. */
    async stop() {
      child.kill("SIGINT");
      // Unref'd: a pending timer would hold this script for the rest of its minute after npm start exited.
      const code = await Promise.race([
        exited,
        new Promise((r) => setTimeout(() => r("hung"), 60_000).unref()),
      ]);
      if (code === "hung") {
        child.kill("SIGKILL");
        throw new Error(`npm start did not stop within 60 s of Ctrl-C:\n${err}`);
      }
      return code;
    },
  };
}

function grab(banner, re, what) {
  const m = re.exec(banner);
  if (!m) throw new Error(`the banner does not show ${what}:\n${banner}`);
  return m.slice(1);
}

async function call(method, url, { headers = {}, body } = {}, retried = false) {
  const res = await fetch(url, {
    method,
    headers: { "content-type": "application/json", ...headers },
    body: body === undefined ? undefined : JSON.stringify(body),
  }).catch((err) => {
    // A kept-alive connection the server closed as idle just as it was reused: the request never
    // reached it, so sending it once more is safe.
    if (!retried && err?.cause?.code === "UND_ERR_SOCKET") return null;
    throw err;
  });
  if (res === null) return call(method, url, { headers, body }, true);
  const text = await res.text();
  return { status: res.status, text };
}

/** A call that must answer 200; 503 (an indexer's first pass, seconds after start) is waited out. */
async function ok200(name, method, url, opts) {
  const res = await until(`${name} to answer 200`, async () => {
    const r = await call(method, url, opts);
    if (r.status === 503) return false;
    if (r.status !== 200) throw Object.assign(new Error(`${name}: ${r.status} ${r.text}`), { fatal: true });
    return r;
  });
  say(`${name}: 200 ${res.text.slice(0, 100)}…`);
  return JSON.parse(res.text);
}

/** The URLs the banner prints: the default ports, or the ones a start beside another checkout moved to. */
function urlsOf(banner) {
  const [api] = grab(banner, /control plane\s+(http:\/\/\S+)/, "the control plane");
  const [gateway] = grab(banner, /\n {2}gateway\s+(http:\/\/\S+)/, "the gateway");
  const [solana] = grab(banner, /solana-devnet\s+(http:\/\/\S+)/, "the Solana node");
  return { api, gateway, solana };
}

say("npm start");
let deployment = await npmStart();
const { banner } = deployment;
let { api: API, gateway: GATEWAY, solana: SOLANA_RPC } = urlsOf(banner);
const [orgEmail] = grab(banner, /Demo organisation \(approved\): (\S+) \/ \S+/, "the demo organisation");
const [key] = grab(banner, /Demo staking API key[^:]*: (stk_\S+)/, "the staking key");
const [gatewayKey] = grab(banner, /Demo gateway key[^:]*: (gwk_\S+)/, "the gateway key");
const [providerKey] = grab(banner, /\/gateway\/([^/\s]+)\/hello/, "the demo provider");
const [hypeWallet] = grab(
  banner,
  /Demo Hyperliquid wallet[^:]*: (0x[0-9a-fA-F]{40})/,
  "the Hyperliquid wallet",
);
const [suiSample] = grab(
  banner,
  /\/sui\/rewards\/daily[^\n]*\n[^\n]*"stake_account_address": "(0x[0-9a-f]+)"/,
  "the Sui sample",
);
const [solanaSeed] = grab(
  banner,
  /Demo Solana wallet[^:]*: \S+ seed \(hex\) ([0-9a-f]{64})/,
  "the Solana wallet",
);
say(`up at ${API}; demo organisation ${orgEmail}`);

try {
  // The README's five first calls.
  await ok200("Hyperliquid delegate", "POST", `${API}/api/v1/staking/delegate`, {
    headers: { "api-key": key },
    body: { amount: 1.5, delegatorAddress: hypeWallet },
  });
  await ok200("Ethereum provision", "POST", `${API}/api/provision`, {
    headers: { "api-key": key },
    body: {
      attributes: {
        withdrawalAddress: "0x00000000219ab540356cBB839Cbe05303d7705Fa",
        validatorsCount: 2,
        batch: true,
      },
    },
  });
  await ok200("Polygon APR", "GET", `${API}/api/apr`, { headers: { "x-api-key": key } });
  await ok200("Sui daily rewards", "POST", `${API}/sui/rewards/daily?page=1&limit=10`, {
    headers: { "x-api-key": key },
    body: { stake_account_address: suiSample, start_date: "2025-01-01", end_date: "2025-01-02" },
  });
  await ok200("gateway paid request", "GET", `${GATEWAY}/gateway/${providerKey}/hello`, {
    headers: { "x-gateway-api-key": gatewayKey, "idempotency-key": `first-hour-${Date.now()}` },
  });

  if (!quick) {
    // The docs' Solana snippet, run exactly as written.
    const doc = readFileSync(path.join(ROOT, "docs/solana-demo.md"), "utf8");
    const snippet = /```js\n([\s\S]*?)```/.exec(doc)?.[1];
    if (!snippet) throw new Error("docs/solana-demo.md has no js snippet");
    const file = path.join(ROOT, ".data", "first-hour", "solana-stake.mjs");
    mkdirSync(path.dirname(file), { recursive: true });
    writeFileSync(file, snippet);
    say("Solana snippet (docs/solana-demo.md): stake, sign, send, confirm, wait for rewards");
    const run = spawnSync(process.execPath, [file], {
      cwd: ROOT,
      env: { ...process.env, KEY: key, API, SOLANA_RPC, SOLANA_SEED: solanaSeed },
      encoding: "utf8",
      timeout: STEP_MS,
    });
    if (run.status !== 0)
      throw new Error(`the Solana snippet failed (${run.status}):\n${run.stdout}\n${run.stderr}`);
    for (const line of run.stdout.trim().split("\n")) say(`  ${line}`);
    if (!/^staked into \S+, signature \S+$/m.test(run.stdout) || !/^rewards: 0\.\d*[1-9]/m.test(run.stdout))
      throw new Error(`the Solana snippet did not confirm and earn:\n${run.stdout}`);

    // The operator CLI as a newcomer types it: no variables set.
    const env = { ...process.env };
    for (const k of ["DATABASE_URL", "REDIS_URL", "REDIS_PREFIX"]) delete env[k];
    const cli = spawnSync("npm", ["run", "--silent", "operator", "--", "orgs", "list"], {
      cwd: ROOT,
      env,
      encoding: "utf8",
      timeout: 60_000,
    });
    if (cli.status !== 0 || !cli.stdout.includes(orgEmail))
      throw new Error(`npm run operator -- orgs list failed (${cli.status}):\n${cli.stdout}\n${cli.stderr}`);
    say(`operator CLI, no variables set: orgs list names ${orgEmail}`);

    // A sign-up through the dashboard's API, then Ctrl-C and npm start again on the same data.
    const email = `newcomer-${Date.now()}@example.com`;
    const password = "Newcomer-first-hour-1";
    const signup = await call("POST", `${API}/api/onboarding/signup`, { body: { email, password } });
    if (signup.status !== 201) throw new Error(`dashboard sign-up: ${signup.status} ${signup.text}`);
    say(`signed up ${email} through the dashboard's API; Ctrl-C`);
    const code = await deployment.stop();
    if (code !== 0) throw new Error(`npm start exited with ${code} on Ctrl-C`);
    say("npm start again");
    deployment = await npmStart();
    ({ api: API, gateway: GATEWAY, solana: SOLANA_RPC } = urlsOf(deployment.banner));
    await ok200("log-in of the user signed up before the restart", "POST", `${API}/api/onboarding/login`, {
      body: { email, password },
    });
    // The keys printed before the restart: printed again, and still accepted.
    const [keyAgain] = grab(deployment.banner, /Demo staking API key[^:]*: (stk_\S+)/, "the staking key");
    const [gatewayKeyAgain] = grab(deployment.banner, /Demo gateway key[^:]*: (gwk_\S+)/, "the gateway key");
    if (keyAgain !== key || gatewayKeyAgain !== gatewayKey)
      throw new Error(`the demo keys changed across the restart: ${key} → ${keyAgain}`);
    await ok200("the staking key printed before the restart", "GET", `${API}/api/apr`, {
      headers: { "x-api-key": key },
    });
    await ok200(
      "the gateway key printed before the restart",
      "GET",
      `${GATEWAY}/gateway/${providerKey}/hello`,
      {
        headers: { "x-gateway-api-key": gatewayKey, "idempotency-key": `first-hour-again-${Date.now()}` },
      },
    );
  }
} finally {
  const code = await deployment.stop();
  say(`Ctrl-C: npm start exited with ${code}`);
}
say("the first hour passed");
