/**
 * `npm start`: the whole system on one machine, with demo data. Postgres and Redis come from
 * DATABASE_URL / REDIS_URL or are ensured locally (scripts/lib/infra.ts); the demo's own database `staking_demo` is created
 * and migrated; the demo organisation is seeded; every process is started and its URL printed.
 * Ctrl-C stops everything this command started.
 */

import path from "node:path";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { buildDashboard, WORKER_NODE_FLAGS } from "@stake/control-plane/build";
import { createDb } from "@stake/db/client";
import { runMigrations } from "@stake/db/migrate";
import { createRedis } from "@stake/db/redis/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { buildGateway, GATEWAY_NODE_FLAGS } from "@stake/gateway/build";
import { backgroundPubkey } from "../devnet/beacon/chain.ts";
import { DEVNET_BATCH_DEPOSITOR } from "../devnet/beacon/execution.ts";
import { demoWallets } from "../devnet/hyperliquid/server.ts";
import { ROLES as POLYGON_ROLES } from "../devnet/polygon/scenario.ts";
import { DEMO as SUI_DEMO, SAMPLE as SUI_SAMPLE } from "../devnet/sui/scenario.ts";
import { bundleEntries } from "./lib/bundle.mjs";
import { writeDeploymentEnv } from "./lib/deployment-env.ts";
import { ensureInfra, stateDir } from "./lib/infra.ts";
import { stopWithBootstrap } from "./lib/owned.ts";
import { type Started, startProcess, stopAll } from "./lib/processes.ts";
import {
  ensureDemoDatabase,
  refuseDemoDatabase,
  refuseDemoNetwork,
  seedDemo,
  seedGatewayDemo,
} from "./seed-demo.ts";

const CONTROL_PLANE_PORT = Number(process.env.CONTROL_PLANE_PORT ?? 3000);
const NETWORK = process.env.NETWORK ?? "testnet";

/**
 * Simulated chain nodes on loopback (devnet/). Each prints `READY <url>`; the URL goes to the
 * control plane in `urlEnv`. A node whose URL variable is already set is not started: that deployment
 * talks to a real node.
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
    urlEnv: "SOLANA_RPC_URL",
    env: { EPOCH_MS: process.env.SOLANA_EPOCH_MS ?? "30000" },
  },
  { name: "beacon-devnet", entry: "devnet/beacon/main.ts", port: 5052, urlEnv: "ETH_BEACON_URL" },
  { name: "sui-devnet", entry: "devnet/sui/main.ts", port: 9125, urlEnv: "SUI_RPC_URL" },
  // Ethereum L1 with Polygon staking at Sepolia's addresses (NETWORK=testnet's defaults): anvil, 31 days of
  // checkpoints built at start (~10 s).
  { name: "polygon-devnet", entry: "devnet/polygon/main.ts", port: 8546, urlEnv: "POLYGON_L1_RPC_URL" },
];
const WORKER_PORT = Number(process.env.WORKER_PORT ?? 3002);
const GATEWAY_PORT = Number(process.env.GATEWAY_PORT ?? 8080);
const DEMO_PROVIDER_PORT = 4010;
const PROVIDER_ENTRY = "devnet/provider/main.ts";
const CONTROL_PLANE_ENTRY = "control-plane/src/main.ts";
const WORKER_ENTRY = "control-plane/src/worker.ts";
const BUNDLES = path.join(stateDir(), "bundle");
/** The Solana devnet's first demo wallet and first validator vote account (fixed seeds, see its main.ts). */
const solanaKey = (fill: number) => base58.encode(ed25519.getPublicKey(new Uint8Array(32).fill(fill)));

const refusal = refuseDemoNetwork(NETWORK);
if (refusal) {
  console.error(`npm start: ${refusal}`);
  process.exit(1);
}
const infra = await ensureInfra();
const databaseUrl = process.env.DATABASE_URL ?? (await ensureDemoDatabase(infra.databaseUrl));
await runMigrations(databaseUrl);
const pg = createDb(databaseUrl, { max: 2, applicationName: "seed" });
const occupied = await refuseDemoDatabase(pg.db);
if (occupied) {
  console.error(`npm start: ${occupied}`);
  await pg.close();
  infra.stop();
  process.exit(1);
}
// Every process below runs compiled ahead (scripts/lib/bundle.mjs: one esbuild call instead of each process
// loading its hundreds of modules through tsx), with the dashboard and the gateway's deployable. esbuild
// builds on threads of its own while this process seeds. Only after the refusals above: a refused start
// writes nothing.
const builds = Promise.all([
  bundleEntries([...DEVNETS.map((d) => d.entry), PROVIDER_ENTRY, CONTROL_PLANE_ENTRY, WORKER_ENTRY], BUNDLES),
  buildDashboard(),
  buildGateway(),
]);
// Awaited once the deployment is seeded; a failure is reported there.
builds.catch(() => {});
const demo = await seedDemo(pg.db);
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
  ...process.env,
  DATABASE_URL: databaseUrl,
  REDIS_URL: infra.redisUrl,
  CONTROL_PLANE_PORT: String(CONTROL_PLANE_PORT),
  NETWORK,
  // The demo runs on the public demo secrets (config.ts refuses them unless this is on).
  DEMO_MODE: "1",
  // The simulated nodes start a new chain each time (genesis now): on the same database the worker deletes
  // the areas indexed from the previous chain and indexes the new one, and logs that it did
  // (docs/architecture.md §13, "Chain identity").
  CHAIN_RESET_POLICY: process.env.CHAIN_RESET_POLICY ?? "reindex",
  // The dashboard's try-it curl names the gateway this command starts.
  DASHBOARD_GATEWAY_URL: process.env.DASHBOARD_GATEWAY_URL ?? `http://127.0.0.1:${GATEWAY_PORT}`,
};

try {
  const nodes: string[] = [];
  const [, , gatewayEntry] = await builds;
  /** Starts a process and keeps it to stop with the rest, as soon as it is up. */
  const up = async (opts: Parameters<typeof startProcess>[0]) => {
    const s = await startProcess({ bundles: BUNDLES, ...opts });
    started.push(s);
    return s;
  };
  // The nodes and the demo provider are independent of one another: started side by side, so start-up
  // waits for the slowest (the Polygon L1 building its month of checkpoints) instead of the sum of all.
  const [nodesUp, provider] = await Promise.all([
    Promise.all(
      DEVNETS.filter((d) => !process.env[d.urlEnv]).map(async (d) => ({
        d,
        node: await up({
          name: d.name,
          entry: d.entry,
          env: { ...baseEnv, ...("env" in d ? d.env : {}), PORT: String(d.port) },
        }),
      })),
    ),
    up({
      name: "demo-provider",
      entry: PROVIDER_ENTRY,
      env: { ...baseEnv, PORT: String(DEMO_PROVIDER_PORT) },
    }),
  ]);
  for (const { d, node } of nodesUp) {
    baseEnv[d.urlEnv] = node.url;
    if (d.urlEnv === "SOLANA_RPC_URL") baseEnv.SOLANA_MEV_API_URL ??= node.url;
    // The simulated L1 mines only when it sends a checkpoint (one a minute): its `finalized` block, 64 below
    // the head, would hold the demo's APR an hour behind.
    if (d.urlEnv === "POLYGON_L1_RPC_URL") baseEnv.POLYGON_SNAPSHOT_DEPTH ??= "0";
    if (d.urlEnv === "ETH_BEACON_URL") {
      // The simulated chain: anvil on 8545 (ETH_EXECUTION_URL's default), indexed from genesis.
      baseEnv.ETH_BATCH_DEPOSITOR ??= DEVNET_BATCH_DEPOSITOR;
      baseEnv.BEACON_INDEXER_START_EPOCH ??= "0";
      baseEnv.BEACON_INDEXER_INTERVAL_MS ??= "2000";
    }
    nodes.push(`  ${d.name.padEnd(20)} ${node.url}`);
  }
  nodes.push(`  ${"demo provider".padEnd(20)} ${provider.url}`);
  const seedPg = createDb(databaseUrl, { max: 2, applicationName: "seed" });
  const seedRedis = createRedis(infra.redisUrl, { name: "seed" });
  const gw = await seedGatewayDemo(
    seedPg.db,
    seedRedis,
    createRedisKeys(process.env.REDIS_PREFIX ?? "stake:"),
    provider.url,
  );
  await Promise.all([seedPg.close(), seedRedis.quit()]);

  // The deployables need the nodes' URLs and the seeded demo, not one another.
  const [cp, worker, gateway] = await Promise.all([
    up({
      name: "control-plane",
      entry: CONTROL_PLANE_ENTRY,
      env: baseEnv,
      readyUrl: `http://127.0.0.1:${CONTROL_PLANE_PORT}`,
    }),
    up({
      name: "worker",
      entry: WORKER_ENTRY,
      nodeFlags: WORKER_NODE_FLAGS,
      env: { ...baseEnv, WORKER_PORT: String(WORKER_PORT) },
      readyUrl: `http://127.0.0.1:${WORKER_PORT}`,
    }),
    up({
      name: "gateway",
      entry: gatewayEntry,
      nodeFlags: GATEWAY_NODE_FLAGS,
      env: { ...baseEnv, GATEWAY_PORT: String(GATEWAY_PORT) },
    }),
  ]);
  for (const s of started) s.child.once("exit", (code) => !stopping && void shutdown(code ?? 1));
  writeDeploymentEnv({
    DATABASE_URL: databaseUrl,
    REDIS_URL: infra.redisUrl,
    REDIS_PREFIX: process.env.REDIS_PREFIX,
  });

  const hypeWallet = demoWallets(1)[0]!;
  // Only the simulated node's wallet is printed: its key is public (a fixed seed) and holds devnet SOL only.
  const solanaDemo = started.some((s) => s.name === "solana-devnet")
    ? `Demo Solana wallet (throwaway devnet key): ${solanaKey(0x01)} seed (hex) ${"01".repeat(32)}
  ${solanaEpochs()}; sign and send with @solana/web3.js: docs/solana-demo.md
`
    : "";
  console.log(`
The staking platform is up (NETWORK=${NETWORK}).

  control plane        ${cp.url}   (API reference: ${cp.url}/docs, OpenAPI: ${cp.url}/openapi.json)
  worker (jobs)        ${worker.url}/healthz
  gateway              ${gateway.url}
  Postgres             ${redact(databaseUrl)}
  Redis                ${infra.redisUrl}
${nodes.join("\n")}

Demo organisation (approved): ${demo.email} / ${demo.password}
Demo staking API key (shown once): ${demo.apiKey}

Try it:
  curl -s -u '${demo.email}:${demo.password}' ${cp.url}/user/api-keys
  curl -s -X POST ${cp.url}/api/v1/staking/delegate -H 'api-key: ${demo.apiKey}' \\
    -d '{"amount": 1.5, "delegatorAddress": "${hypeWallet.address}"}'

  curl -s -X POST ${cp.url}/api/v1/stake -H 'x-api-key: ${demo.apiKey}' \\
    -d '{"validatorPubKey": "${solanaKey(0xf0)}", "walletPubKey": "${solanaKey(0x01)}", "amount": 2000000000}'
  curl -s -X POST ${cp.url}/api/provision -H 'api-key: ${demo.apiKey}' \\
    -d '{"attributes": {"withdrawalAddress": "0x00000000219ab540356cBB839Cbe05303d7705Fa", "validatorsCount": 2, "batch": true}}'
  curl -s "${cp.url}/api/validators?provisionId=<provisionId from the answer above>" -H 'api-key: ${demo.apiKey}'

  # Sui (chain C): the spec sample's delegator, then the demo delegator (3 stakes, 1 unstake, a safe-mode
  # epoch); the worker indexes the devnet's pools within seconds of start-up (503 until then).
  curl -s -X POST "${cp.url}/sui/rewards/daily?page=1&limit=10" -H 'x-api-key: ${demo.apiKey}' \\
    -d '{"stake_account_address": "${SUI_SAMPLE.delegator}", "start_date": "2025-01-01", "end_date": "2025-01-02"}'
  curl -s -X POST ${cp.url}/api/rewards -H 'x-api-key: ${demo.apiKey}' \\
    -d '{"stake_account_address": "${SUI_DEMO.delegator}", "start_date": "2025-01-28", "end_date": "2025-02-02"}'
  # Polygon (chain B): a delegator of validator 18 on the simulated L1 (POL, and exactly in wei), then the
  # delegators' APR over 1/7/30 days from the worker's snapshots (503 until its first pass, seconds after start).
  curl -s -X POST ${cp.url}/api/pending-rewards -H 'x-api-key: ${demo.apiKey}' \\
    -d '{"stake_account_address": "${POLYGON_ROLES.delegators[0]}"}'
  curl -s ${cp.url}/api/apr -H 'x-api-key: ${demo.apiKey}'
  Beacon data (the worker indexes the simulated chain; follow two of its validators, then read):
  curl -s -X POST ${cp.url}/api/validators/register -H 'api-key: ${demo.apiKey}' \\
    -d '{"pubkeys": ["${backgroundPubkey(0)}", "${backgroundPubkey(1)}"]}'
  curl -s "${cp.url}/api/validators/list?per_page=5" -H 'api-key: ${demo.apiKey}'
  curl -s "${cp.url}/api/rewards/overview" -H 'api-key: ${demo.apiKey}'
  curl -s "${cp.url}/api/rewards/epoch?start_epoch=0&end_epoch=3" -H 'api-key: ${demo.apiKey}'
  curl -s "${cp.url}/api/rewards/date?start_date=$(date -u +%F)&end_date=$(date -u +%F)&interval=1d" -H 'api-key: ${demo.apiKey}'
  curl -s "${cp.url}/api/transactions" -H 'api-key: ${demo.apiKey}'

Gateway account dashboard: ${cp.url}/dashboard  (log in as ${gw.email} / ${gw.password}, or sign up)
Gateway demo: user ${gw.email} / ${gw.password}, party ${gw.partyId} funded with ${gw.balance} coins
(1 coin = ${gw.usdPerCoin} USD at first start; provider "${gw.providerKey}" costs ${gw.costInUsd} USD a request).
Demo gateway key (shown once): ${gw.gatewayKey}
  curl -s ${gateway.url}/gateway/${gw.providerKey}/hello?from=readme -H 'x-gateway-api-key: ${gw.gatewayKey}' \\
    -H "idempotency-key: $(date +%s%N)"
  TOKEN=$(curl -s -X POST ${cp.url}/api/onboarding/login -d '{"email":"${gw.email}","password":"${gw.password}"}' | sed 's/.*"token":"\\([^"]*\\)".*/\\1/')
  curl -s ${cp.url}/api/balance -H "authorization: Bearer $TOKEN"

Demo Hyperliquid wallet (throwaway devnet key): ${hypeWallet.address} ${hypeWallet.privateKey}
${solanaDemo}
Operator CLI: DATABASE_URL='${databaseUrl}' npm run operator -- orgs list
Ctrl-C stops everything.`);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  await shutdown(1);
}

function solanaEpochs(): string {
  const ms = Number(process.env.SOLANA_EPOCH_MS ?? 30000);
  return ms > 0
    ? `an epoch closes every ${ms / 1000} s (SOLANA_EPOCH_MS)`
    : "epochs never close (SOLANA_EPOCH_MS=0)";
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}
