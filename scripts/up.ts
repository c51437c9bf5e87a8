/**
 * `npm start`: the whole system on one machine, with demo data. Postgres and Redis come from
 * DATABASE_URL / REDIS_URL or are ensured locally (scripts/lib/infra.ts); the demo's own database `staking_demo` is created
 * and migrated; the demo organisation is seeded; every process is started and its URL printed.
 * Ctrl-C stops everything this command started.
 */

import { createWriteStream, mkdirSync } from "node:fs";
import path from "node:path";
import { buildDashboard, WORKER_NODE_FLAGS } from "@stake/control-plane/build";
import { createDb } from "@stake/db/client";
import { runMigrations } from "@stake/db/migrate";
import { createRedis } from "@stake/db/redis/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { chainIdentities } from "@stake/db/schema/chain-identity";
import { buildGateway, GATEWAY_NODE_FLAGS } from "@stake/gateway/build";
import { DEVNET_BATCH_DEPOSITOR } from "../devnet/beacon/execution.ts";
import { INBOX_ALLOWANCE } from "../devnet/webhook-inbox/server.ts";
import { demoBanner, saveBanner } from "./lib/banner.ts";
import { bundleEntries } from "./lib/bundle.mjs";
import {
  claimRedisPrefix,
  loadCheckout,
  ownNames,
  readDemoKeys,
  saveCheckout,
  writeDemoKeys,
} from "./lib/checkout.ts";
import { depositDemoValidators } from "./lib/demo-validators.ts";
import { writeDeploymentEnv } from "./lib/deployment-env.ts";
import { ensureInfra, stateDir } from "./lib/infra.ts";
import { stopWithBootstrap } from "./lib/owned.ts";
import { choosePort } from "./lib/ports.ts";
import { type Started, startProcess, stopAll } from "./lib/processes.ts";
import {
  ensureDemoDatabase,
  refuseDemoDatabase,
  refuseDemoNetwork,
  seedDemo,
  seedGatewayDemo,
} from "./seed-demo.ts";

const NETWORK = process.env.NETWORK ?? "testnet";
const env = process.env;

/**
 * Simulated chain nodes on loopback (devnet/). Each prints `READY <url>`; the URL goes to the
 * control plane in `urlEnv`. A node whose URL variable is already set is not started: that deployment
 * talks to a real node. `span`: ports it listens on from PORT (the Solana node's PubSub on PORT + 1).
 */
const DEVNETS = [
  {
    name: "hyperliquid-devnet",
    entry: "devnet/hyperliquid/main.ts",
    port: 3001,
    urlEnv: "HYPERLIQUID_API_URL",
  },
  // Epochs close on a timer (SOLANA_EPOCH_MS, default 30 s), so rewards and history fill while one watches.
  {
    name: "solana-devnet",
    entry: "devnet/solana/main.ts",
    port: 8899,
    span: 2,
    urlEnv: "SOLANA_RPC_URL",
    env: { EPOCH_MS: env.SOLANA_EPOCH_MS ?? "30000" },
  },
  { name: "beacon-devnet", entry: "devnet/beacon/main.ts", port: 5052, urlEnv: "ETH_BEACON_URL" },
  { name: "sui-devnet", entry: "devnet/sui/main.ts", port: 9125, urlEnv: "SUI_RPC_URL" },
  // Ethereum L1 with Polygon staking at Sepolia's addresses (NETWORK=testnet's defaults): anvil, 31 days of
  // checkpoints built at start (~10 s).
  { name: "polygon-devnet", entry: "devnet/polygon/main.ts", port: 8546, urlEnv: "POLYGON_L1_RPC_URL" },
];
const PROVIDER_ENTRY = "devnet/provider/main.ts";
const INBOX_ENTRY = "devnet/webhook-inbox/main.ts";
const CONTROL_PLANE_ENTRY = "control-plane/src/main.ts";
const WORKER_ENTRY = "control-plane/src/worker.ts";
const BUNDLES = path.join(stateDir(), "bundle");
const LOGS = path.join(".data", "logs");

/** Ends a start that must not go on with one line, before anything of this start runs. */
function refuse(reason: string): never {
  console.error(`npm start: ${reason}`);
  process.exit(1);
}

const refusal = refuseDemoNetwork(NETWORK);
if (refusal) refuse(refusal);
/**
 * Every port this start listens on: the default when free, else a free one (scripts/lib/ports.ts), the
 * moves said in one line; a port the user set and another program holds refuses the start in one line,
 * before any server starts or anything is written.
 */
const moved: string[] = [];
const port = (variable: string, preferred: number, what: string, span = 1) =>
  choosePort({
    preferred: Number(env[variable] ?? preferred),
    fixed: env[variable] !== undefined,
    variable,
    what,
    span,
    log: (line) => moved.push(line),
  }).catch((err: Error) => refuse(err.message));
const ports = {
  controlPlane: await port("CONTROL_PLANE_PORT", 3000, "control plane"),
  worker: await port("WORKER_PORT", 3002, "worker"),
  gateway: await port("GATEWAY_PORT", 8080, "gateway"),
  provider: await port("DEMO_PROVIDER_PORT", 4010, "demo provider"),
  inbox: await port("WEBHOOK_INBOX_PORT", 4011, "webhook inbox"),
  devnets: new Map<string, number>(),
  // The beacon devnet's execution node (anvil), where ETH_EXECUTION_URL points.
  execution: env.ETH_BEACON_URL ? 0 : await port("EXECUTION_PORT", 8545, "beacon execution node"),
};
for (const d of DEVNETS)
  if (!env[d.urlEnv])
    ports.devnets.set(
      d.name,
      await port(`${d.name.split("-")[0]!.toUpperCase()}_DEVNET_PORT`, d.port, d.name, d.span),
    );
if (moved.length)
  console.error(
    `npm start: default ports in use (another checkout or program), this one uses ${moved.join(", ")}`,
  );

let checkout = loadCheckout();
const infra = await ensureInfra().catch((err: Error) => refuse(err.message));
let databaseUrl = env.DATABASE_URL;
if (!databaseUrl) {
  let own = await ensureDemoDatabase(infra.databaseUrl, checkout.database, checkout.id);
  if ("ownedBy" in own) {
    // A pre-id checkout whose shared database another checkout claimed first: it gets names of its own.
    console.error(
      `npm start: the database ${checkout.database} belongs to another checkout (${own.ownedBy}); this checkout uses its own`,
    );
    checkout = ownNames(checkout.id);
    saveCheckout(checkout);
    own = await ensureDemoDatabase(infra.databaseUrl, checkout.database, checkout.id);
    if ("ownedBy" in own) refuse(`the database ${checkout.database} belongs to checkout ${own.ownedBy}`);
  }
  databaseUrl = own.url;
}
await runMigrations(databaseUrl);
const pg = createDb(databaseUrl, { max: 2, applicationName: "seed" });
const redisPrefix = env.REDIS_PREFIX ?? checkout.redisPrefix;
const redisKeys = createRedisKeys(redisPrefix);
const seedRedis = createRedis(infra.redisUrl, { name: "seed" });
const occupied =
  (await refuseDemoDatabase(pg.db, checkout.id)) ??
  (await claimRedisPrefix(seedRedis, redisKeys, checkout.id));
if (occupied) {
  await Promise.all([pg.close(), seedRedis.quit()]);
  infra.stop();
  refuse(occupied);
}

// Every process below runs compiled ahead (scripts/lib/bundle.mjs: one esbuild call instead of each process
// loading its hundreds of modules through tsx), with the dashboard and the gateway's deployable. esbuild
// builds on threads of its own while this process seeds. Only after the refusals above: a refused start
// writes nothing.
const builds = Promise.all([
  bundleEntries(
    [...DEVNETS.map((d) => d.entry), PROVIDER_ENTRY, INBOX_ENTRY, CONTROL_PLANE_ENTRY, WORKER_ENTRY],
    BUNDLES,
  ),
  buildDashboard(),
  buildGateway(),
]);
// Awaited once the deployment is seeded; a failure is reported there.
builds.catch(() => {});
const kept = readDemoKeys();
const demo = await seedDemo(pg.db, kept.stakingKey);
writeDemoKeys({ ...kept, stakingKey: demo.apiKey });
await pg.close();

const started: Started[] = [];
let stopping = false;
const shutdown = async (code: number) => {
  if (stopping) return;
  stopping = true;
  console.error("\nstopping…");
  await stopAll(started);
  infra.stop();
  process.exit(code);
};
process.on("SIGINT", () => void shutdown(0));
process.on("SIGTERM", () => void shutdown(0));
stopWithBootstrap();

const baseEnv: NodeJS.ProcessEnv = {
  ...env,
  DATABASE_URL: databaseUrl,
  REDIS_URL: infra.redisUrl,
  REDIS_PREFIX: redisPrefix,
  CONTROL_PLANE_PORT: String(ports.controlPlane),
  NETWORK,
  // The demo runs on the public demo secrets (config.ts refuses them unless this is on).
  DEMO_MODE: "1",
  // The simulated nodes start a new chain each time (genesis now): on the same database the worker deletes
  // the areas indexed from the previous chain and indexes the new one, and logs that it did
  // (docs/architecture.md §13, "Chain identity").
  CHAIN_RESET_POLICY: process.env.CHAIN_RESET_POLICY ?? "reindex",
  // The dashboard's try-it curl names the gateway this command starts.
  DASHBOARD_GATEWAY_URL: env.DASHBOARD_GATEWAY_URL ?? `http://127.0.0.1:${ports.gateway}`,
};
if (ports.execution) baseEnv.ETH_EXECUTION_URL ??= `http://127.0.0.1:${ports.execution}`;

// Each process logs to a file of its own: the console keeps the banner (npm run banner prints it again).
mkdirSync(LOGS, { recursive: true });
const logTo = (name: string) => {
  const file = createWriteStream(path.join(LOGS, `${name}.log`), { flags: "a" });
  return (line: string) => file.write(`${line}\n`);
};

try {
  const nodes: string[] = [];
  const [, , gatewayEntry] = await builds;
  console.error(`npm start: starting the processes; their logs: ${LOGS}/<process>.log`);
  /** Starts a process and keeps it to stop with the rest, as soon as it is up. */
  const up = async (opts: Parameters<typeof startProcess>[0]) => {
    const s = await startProcess({ bundles: BUNDLES, output: logTo(opts.name), ...opts }).catch(
      (err: Error) => {
        throw new Error(`${err.message} (its log: ${LOGS}/${opts.name}.log)`);
      },
    );
    started.push(s);
    return s;
  };
  // The nodes and the demo provider are independent of one another: started side by side, so start-up
  // waits for the slowest (the Polygon L1 building its month of checkpoints) instead of the sum of all.
  const [nodesUp, provider, inbox] = await Promise.all([
    Promise.all(
      DEVNETS.filter((d) => !env[d.urlEnv]).map(async (d) => ({
        d,
        node: await up({
          name: d.name,
          entry: d.entry,
          env: {
            ...baseEnv,
            ...("env" in d ? d.env : {}),
            PORT: String(ports.devnets.get(d.name)),
            EXECUTION_PORT: String(ports.execution),
          },
        }),
      })),
    ),
    up({
      name: "demo-provider",
      entry: PROVIDER_ENTRY,
      env: { ...baseEnv, PORT: String(ports.provider) },
    }),
    up({ name: "webhook-inbox", entry: INBOX_ENTRY, env: { ...baseEnv, PORT: String(ports.inbox) } }),
  ]);
  // Webhooks may reach the demo's inbox, an http:// receiver on loopback: allowed in this start's processes
  // only; the defaults (https only, no private or loopback address) stay the deployment's
  // (docs/api-areas.md, "Webhooks").
  baseEnv.WEBHOOK_ALLOW_HTTP ??= INBOX_ALLOWANCE.WEBHOOK_ALLOW_HTTP;
  baseEnv.WEBHOOK_ALLOWED_CIDRS = [env.WEBHOOK_ALLOWED_CIDRS, INBOX_ALLOWANCE.WEBHOOK_ALLOWED_CIDRS]
    .filter(Boolean)
    .join(",");
  for (const { d, node } of nodesUp) {
    baseEnv[d.urlEnv] = node.url;
    if (d.urlEnv === "SOLANA_RPC_URL") baseEnv.SOLANA_MEV_API_URL ??= node.url;
    // The simulated L1 mines only when it sends a checkpoint (one a minute): its `finalized` block, 64 below
    // the head, would hold the demo's APR an hour behind.
    if (d.urlEnv === "POLYGON_L1_RPC_URL") baseEnv.POLYGON_SNAPSHOT_DEPTH ??= "0";
    if (d.urlEnv === "ETH_BEACON_URL") {
      // The beacon devnet: its anvil at ETH_EXECUTION_URL, indexed from genesis.
      baseEnv.ETH_BATCH_DEPOSITOR ??= DEVNET_BATCH_DEPOSITOR;
      baseEnv.BEACON_INDEXER_START_EPOCH ??= "0";
      baseEnv.BEACON_INDEXER_INTERVAL_MS ??= "2000";
    }
    nodes.push(`  ${d.name.padEnd(20)} ${node.url}`);
  }
  nodes.push(`  ${"demo provider".padEnd(20)} ${provider.url}`);
  nodes.push(`  ${"webhook inbox".padEnd(20)} ${inbox.url}`);
  const seedPg = createDb(databaseUrl, { max: 2, applicationName: "seed" });
  const gw = await seedGatewayDemo(seedPg.db, seedRedis, redisKeys, {
    providerUrl: provider.url,
    keep: kept.gatewayKey,
  });
  writeDemoKeys({ stakingKey: demo.apiKey, gatewayKey: gw.gatewayKey });
  // The simulated nodes start new chains: what an earlier start indexed is of a chain that is gone, and the
  // worker re-indexes it (CHAIN_RESET_POLICY above). Said here, not only in the worker's log.
  const indexed = await seedPg.db.select({ area: chainIdentities.area }).from(chainIdentities);
  if (indexed.length && baseEnv.CHAIN_RESET_POLICY === "reindex")
    console.error(
      `npm start: the simulated nodes start new chains; the worker re-indexes ${indexed.map((r) => r.area).join(", ")} from them (docs/operations.md)`,
    );
  await Promise.all([seedPg.close(), seedRedis.quit()]);

  // The deployables need the nodes' URLs and the seeded demo, not one another.
  const [cp, worker, gateway] = await Promise.all([
    up({
      name: "control-plane",
      entry: CONTROL_PLANE_ENTRY,
      env: baseEnv,
      readyUrl: `http://127.0.0.1:${ports.controlPlane}`,
    }),
    up({
      name: "worker",
      entry: WORKER_ENTRY,
      nodeFlags: WORKER_NODE_FLAGS,
      env: { ...baseEnv, WORKER_PORT: String(ports.worker) },
      readyUrl: `http://127.0.0.1:${ports.worker}`,
    }),
    up({
      name: "gateway",
      entry: gatewayEntry,
      nodeFlags: GATEWAY_NODE_FLAGS,
      env: { ...baseEnv, GATEWAY_PORT: String(ports.gateway) },
    }),
  ]);
  for (const s of started)
    s.child.once("exit", (code) => {
      if (stopping) return;
      console.error(`npm start: ${s.name} exited with code ${code} (its log: ${LOGS}/${s.name}.log)`);
      void shutdown(code ?? 1);
    });
  writeDeploymentEnv({ DATABASE_URL: databaseUrl, REDIS_URL: infra.redisUrl, REDIS_PREFIX: redisPrefix });
  // On the devnet this start runs (not a configured node), the demo organisation's own validators deposited.
  const demoValidators =
    ports.execution && baseEnv.ETH_EXECUTION_URL
      ? await depositDemoValidators({
          cp: cp.url,
          apiKey: demo.apiKey,
          executionUrl: baseEnv.ETH_EXECUTION_URL,
          deadline: Date.now() + 300_000,
        })
      : [];

  const banner = demoBanner({
    network: NETWORK,
    cp: cp.url,
    worker: worker.url,
    gateway: gateway.url,
    postgres: redact(databaseUrl),
    redis: infra.redisUrl,
    nodes,
    solana: started.some((s) => s.name === "solana-devnet"),
    solanaEpochMs: Number(env.SOLANA_EPOCH_MS ?? 30000),
    demo,
    gw,
    inbox: inbox.url,
    beaconPubkeys: await beaconDemoValidators(baseEnv.ETH_BEACON_URL),
    demoValidators,
    logs: LOGS,
  });
  saveBanner(banner);
  console.log(banner);
} catch (err) {
  console.error(`npm start: ${err instanceof Error ? err.message : err}`);
  await shutdown(1);
}

/**
 * The validators the banner's calls follow: the devnet's genesis validators 0 and 60 (60 is offline by
 * design, devnet/beacon/main.ts), read from the beacon node the control plane uses; none without one.
 */
async function beaconDemoValidators(beaconUrl: string | undefined): Promise<string[]> {
  if (!beaconUrl) return [];
  const res = await fetch(`${beaconUrl}/eth/v1/beacon/states/head/validators?id=0,60`);
  if (!res.ok) throw new Error(`the beacon node answered ${res.status} for its validators`);
  const body = (await res.json()) as { data: { validator: { pubkey: string } }[] };
  return body.data.map((v) => v.validator.pubkey);
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}
