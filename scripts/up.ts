/**
 * `npm start`: the whole system on one machine, with demo data. Postgres and Redis come from
 * DATABASE_URL / REDIS_URL or are ensured locally (scripts/lib/infra.ts); the database `staking` is created
 * and migrated; the demo organisation is seeded; every process is started and its URL printed.
 * Ctrl-C stops everything this command started.
 */

import { ed25519 } from "@noble/curves/ed25519.js";
import { createDb } from "@stake/db/client";
import { runMigrations } from "@stake/db/migrate";
import postgres from "postgres";
import { base58Encode } from "../control-plane/src/features/solana-stake/codec.ts";
import { demoWallets } from "../tests/devnet/hyperliquid/server.ts";
import { ensureInfra } from "./lib/infra.ts";
import { type Started, startProcess, stopAll } from "./lib/processes.ts";
import { seedDemo } from "./seed-demo.ts";

const CONTROL_PLANE_PORT = Number(process.env.CONTROL_PLANE_PORT ?? 3000);
const NETWORK = process.env.NETWORK ?? "testnet";

/**
 * Simulated chain nodes on loopback (tests/devnet). Each prints `READY <url>`; the URL goes to the
 * control plane in `urlEnv`. A node whose URL variable is already set is not started: that deployment
 * talks to a real node.
 */
const DEVNETS = [
  {
    name: "hyperliquid-devnet",
    entry: "tests/devnet/hyperliquid/main.ts",
    port: 3001,
    urlEnv: "HYPERLIQUID_API_URL",
  },
  { name: "solana-devnet", entry: "tests/devnet/solana/main.ts", port: 8899, urlEnv: "SOLANA_RPC_URL" },
];
/** The Solana devnet's first demo wallet and first validator vote account (fixed seeds, see its main.ts). */
const solanaKey = (fill: number) => base58Encode(ed25519.getPublicKey(new Uint8Array(32).fill(fill)));

const infra = await ensureInfra();
const databaseUrl = process.env.DATABASE_URL ?? (await ensureDatabase(infra.databaseUrl, "staking"));
await runMigrations(databaseUrl);
const pg = createDb(databaseUrl, { max: 2, applicationName: "seed" });
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

const baseEnv: NodeJS.ProcessEnv = {
  ...process.env,
  DATABASE_URL: databaseUrl,
  REDIS_URL: infra.redisUrl,
  CONTROL_PLANE_PORT: String(CONTROL_PLANE_PORT),
  NETWORK,
};

try {
  const nodes: string[] = [];
  for (const d of DEVNETS) {
    if (process.env[d.urlEnv]) continue;
    const node = await startProcess({
      name: d.name,
      entry: d.entry,
      env: { ...baseEnv, PORT: String(d.port) },
    });
    started.push(node);
    baseEnv[d.urlEnv] = node.url;
    if (d.urlEnv === "SOLANA_RPC_URL") baseEnv.SOLANA_MEV_API_URL ??= node.url;
    nodes.push(`  ${d.name.padEnd(20)} ${node.url}`);
  }
  const cp = await startProcess({
    name: "control-plane",
    entry: "control-plane/src/main.ts",
    env: baseEnv,
    readyUrl: `http://127.0.0.1:${CONTROL_PLANE_PORT}`,
  });
  started.push(cp);
  for (const s of started) s.child.once("exit", (code) => !stopping && void shutdown(code ?? 1));

  const hypeWallet = demoWallets(1)[0]!;
  console.log(`
The staking platform is up (NETWORK=${NETWORK}).

  control plane        ${cp.url}
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

Demo Hyperliquid wallet (throwaway devnet key): ${hypeWallet.address} ${hypeWallet.privateKey}

Operator CLI: DATABASE_URL='${databaseUrl}' npm run operator -- orgs list
Ctrl-C stops everything.`);
} catch (err) {
  console.error(err instanceof Error ? err.message : err);
  await shutdown(1);
}

async function ensureDatabase(adminUrl: string, name: string): Promise<string> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [found] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!found) await admin.unsafe(`create database ${name}`);
  } finally {
    await admin.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

function redact(url: string): string {
  const u = new URL(url);
  if (u.password) u.password = "***";
  return u.toString();
}
