import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { demoWallets } from "../../devnet/hyperliquid/server.ts";
import { ROLES as POLYGON_ROLES } from "../../devnet/polygon/scenario.ts";
import { DEMO as SUI_DEMO, SAMPLE as SUI_SAMPLE } from "../../devnet/sui/scenario.ts";
import { ROOT } from "./infra.ts";

/** The Solana devnet's first demo wallet and first validator vote account (fixed seeds, see its main.ts). */
const solanaKey = (fill: number) => base58.encode(ed25519.getPublicKey(new Uint8Array(32).fill(fill)));

/**
 * A fresh idempotency key in portable shell (POSIX `od`, Linux and macOS alike; `date +%N` is GNU only):
 * a printed gateway call pasted twice is two requests, not a 409 replay of the first.
 */
export const SHELL_IDEMPOTENCY_KEY = `"idempotency-key: $(od -An -N8 -tx1 /dev/urandom | tr -d ' \\n')"`;

export interface BannerInput {
  network: string;
  cp: string;
  worker: string;
  gateway: string;
  postgres: string;
  redis: string;
  nodes: string[];
  solana: boolean;
  solanaEpochMs: number;
  demo: { email: string; password: string; apiKey: string };
  gw: {
    email: string;
    password: string;
    partyId: string | null;
    balance: string;
    usdPerCoin: string;
    providerKey: string;
    costInUsd: string;
    gatewayKey: string;
  };
  /** The demo's webhook inbox (devnet/webhook-inbox/). */
  inbox: string;
  /** Validators of the beacon node for the demo to follow (beaconDemoValidators). */
  beaconPubkeys: string[];
  /** The demo organisation's own validators, deposited at start (scripts/lib/demo-validators.ts). */
  demoValidators: string[];
  logs: string;
}

/**
 * What `npm start` prints once everything is up: the URLs, the demo keys and calls to paste. Every call
 * works as pasted, and pasted again (tests/scripts/demo-restart.test.ts runs each twice): no placeholder,
 * a provision's id carried in a shell variable, a fresh idempotency key per gateway call.
 */
export function demoBanner(b: BannerInput): string {
  const { cp, demo, gw } = b;
  const hypeWallet = demoWallets(1)[0]!;
  const epochs =
    b.solanaEpochMs > 0
      ? `an epoch closes every ${b.solanaEpochMs / 1000} s (SOLANA_EPOCH_MS)`
      : "epochs never close (SOLANA_EPOCH_MS=0)";
  // Only the simulated node's wallet is printed: its key is public (a fixed seed) and holds devnet SOL only.
  const solanaDemo = b.solana
    ? `Demo Solana wallet (throwaway devnet key): ${solanaKey(0x01)} seed (hex) ${"01".repeat(32)}
  ${epochs}; sign and send with @solana/web3.js: docs/solana-demo.md
`
    : "";
  const key = demo.apiKey;
  // The organisation's own validators (deposited at start). Their exit is printed as a comment: it is not a
  // call to paste twice (the second answers 409, the validator is exiting), nor before they are active.
  const [exitable] = b.demoValidators;
  const demoExit = exitable
    ? `  # The organisation's own two validators, deposited through the deposit contract at start, walk pending
  # -> active by the chain's rules (epoch 12, about 3 minutes) and may exit 2 epochs later:
  curl -s "${cp}/api/validators/list?pubkeys=${b.demoValidators.join(",")}" -H 'api-key: ${key}'
  # Then exit one, signed with the key the platform holds and sent to the node's pool (409 with the reason
  # before then, and once it is exiting); the list shows it walk to withdrawal_done:
  #   curl -s -X POST ${cp}/api/validators/exit -H 'api-key: ${key}' -d '{"pubkeys": ["${exitable}"]}'
`
    : "";
  return `
The staking platform is up (NETWORK=${b.network}).

  control plane        ${cp}   (API reference: ${cp}/docs, OpenAPI: ${cp}/openapi.json)
  worker (jobs)        ${b.worker}/healthz
  gateway              ${b.gateway}
  Postgres             ${b.postgres}
  Redis                ${b.redis}
${b.nodes.join("\n")}

Demo organisation (approved): ${demo.email} / ${demo.password}
Demo staking API key (kept across restarts in .data/demo-keys.json): ${key}

Try it:
  curl -s -u '${demo.email}:${demo.password}' ${cp}/user/api-keys
  curl -s -X POST ${cp}/api/v1/staking/delegate -H 'api-key: ${key}' \\
    -d '{"amount": 1.5, "delegatorAddress": "${hypeWallet.address}"}'

  curl -s -X POST ${cp}/api/v1/stake -H 'x-api-key: ${key}' \\
    -d '{"validatorPubKey": "${solanaKey(0xf0)}", "walletPubKey": "${solanaKey(0x01)}", "amount": 2000000000}'
  # Ethereum: provision two validators (the answer is kept in $PROVISION), then read them.
  PROVISION=$(curl -s -X POST ${cp}/api/provision -H 'api-key: ${key}' \\
    -d '{"attributes": {"withdrawalAddress": "0x00000000219ab540356cBB839Cbe05303d7705Fa", "validatorsCount": 2, "batch": true}}'); echo "$PROVISION"
  curl -s "${cp}/api/validators?provisionId=$(echo "$PROVISION" | sed 's/.*"provisionId":"\\([^"]*\\)".*/\\1/')" -H 'api-key: ${key}'

  # Sui (chain C): the spec sample's delegator, then the demo delegator (3 stakes, 1 unstake, a safe-mode
  # epoch); the worker indexes the devnet's pools within seconds of start-up (503 until then).
  curl -s -X POST "${cp}/sui/rewards/daily?page=1&limit=10" -H 'x-api-key: ${key}' \\
    -d '{"stake_account_address": "${SUI_SAMPLE.delegator}", "start_date": "2025-01-01", "end_date": "2025-01-02"}'
  curl -s -X POST ${cp}/api/rewards -H 'x-api-key: ${key}' \\
    -d '{"stake_account_address": "${SUI_DEMO.delegator}", "start_date": "2025-01-28", "end_date": "2025-02-02"}'
  # Polygon (chain B): a delegator of validator 18 on the simulated L1 (POL, and exactly in wei), then the
  # delegators' APR over 1/7/30 days from the worker's snapshots (503 until its first pass, seconds after start).
  curl -s -X POST ${cp}/api/pending-rewards -H 'x-api-key: ${key}' \\
    -d '{"stake_account_address": "${POLYGON_ROLES.delegators[0]}"}'
  curl -s ${cp}/api/apr -H 'x-api-key: ${key}'
  # Beacon data (the worker indexes the devnet's chain, made by Lodestar's state transition; follow two of its
  # genesis validators, the second offline by design so its penalties show, then read; rewards per epoch
  # with their breakdown as epochs complete, 16 s each):
  curl -s -X POST ${cp}/api/validators/register -H 'api-key: ${key}' \\
    -d '{"pubkeys": ${JSON.stringify(b.beaconPubkeys)}}'
  curl -s "${cp}/api/validators/list?per_page=10" -H 'api-key: ${key}'
${demoExit}  curl -s "${cp}/api/rewards/overview" -H 'api-key: ${key}'
  curl -s "${cp}/api/rewards/epoch?start_epoch=0&end_epoch=3" -H 'api-key: ${key}'
  curl -s "${cp}/api/rewards/date?start_date=$(date -u +%F)&end_date=$(date -u +%F)&interval=1d" -H 'api-key: ${key}'
  curl -s "${cp}/api/transactions" -H 'api-key: ${key}'
  curl -s "${cp}/api/network/ethereum" -H 'api-key: ${key}'
  # Webhooks: an endpoint at the demo's inbox (the answer, with its secret shown once, kept in $WEBHOOK; each
  # paste adds one, up to 10), a test event to it, then the inbox, signatures checked with that secret.
  WEBHOOK=$(curl -s -X POST ${cp}/api/webhooks/endpoints -H 'api-key: ${key}' -d '{"url": "${b.inbox}/hook"}'); echo "$WEBHOOK"
  curl -s -X POST "${cp}/api/webhooks/endpoints/$(echo "$WEBHOOK" | sed 's/.*"id":"\\([^"]*\\)".*/\\1/')/test" -H 'api-key: ${key}'
  curl -s ${b.inbox}/hook -H "webhook-secret: $(echo "$WEBHOOK" | sed 's/.*"secret":"\\([^"]*\\)".*/\\1/')"

Gateway account dashboard: ${cp}/dashboard  (log in as ${gw.email} / ${gw.password}, or sign up)
Organisations' console: ${cp}/console  (sign in as ${demo.email} / ${demo.password})
Gateway demo: user ${gw.email} / ${gw.password}, party ${gw.partyId} funded with ${gw.balance} coins
(1 coin = ${gw.usdPerCoin} USD at first start; provider "${gw.providerKey}" costs ${gw.costInUsd} USD a request).
Demo gateway key (kept across restarts in .data/demo-keys.json): ${gw.gatewayKey}
  curl -s ${b.gateway}/gateway/${gw.providerKey}/hello?from=readme -H 'x-gateway-api-key: ${gw.gatewayKey}' \\
    -H ${SHELL_IDEMPOTENCY_KEY}
  TOKEN=$(curl -s -X POST ${cp}/api/onboarding/login -d '{"email":"${gw.email}","password":"${gw.password}"}' | sed 's/.*"token":"\\([^"]*\\)".*/\\1/')
  curl -s ${cp}/api/balance -H "authorization: Bearer $TOKEN"

Demo Hyperliquid wallet (throwaway devnet key): ${hypeWallet.address} ${hypeWallet.privateKey}
${solanaDemo}
Operator CLI: npm run operator -- orgs list   (it finds this deployment in .data/env)
Logs: ${b.logs}/<process>.log; this banner again: npm run banner
Ctrl-C (or SIGTERM to npm start) stops everything.`;
}

const BANNER_FILE = path.join(ROOT, ".data", "banner.txt");

/** Keeps the banner for `npm run banner`: the console scrolls, the file stays. */
export function saveBanner(text: string): void {
  mkdirSync(path.dirname(BANNER_FILE), { recursive: true });
  writeFileSync(BANNER_FILE, `${text}\n`, { mode: 0o600 });
}

export function savedBanner(): string | null {
  return existsSync(BANNER_FILE) ? readFileSync(BANNER_FILE, "utf8") : null;
}
