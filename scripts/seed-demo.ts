import {
  createAccountOperatorService,
  createGatewayOperatorService,
  createPasswordHasher,
} from "@stake/control-plane/operator";
import type { Db } from "@stake/db/client";
import { formatCoins } from "@stake/db/coin";
import type { Redis } from "@stake/db/redis/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import { organisations } from "@stake/db/schema/accounts";
import { gatewayUsers } from "@stake/db/schema/gateway";
import { ne, sql } from "drizzle-orm";
import postgres from "postgres";

export const DEMO = {
  email: "demo@example.com",
  password: "DemoPassw0rd",
  org: "Demo Staking Org",
  keyLabel: "demo",
} as const;

const DEMO_PASSWORDS = createPasswordHasher({ memoryCost: 19456, timeCost: 2 });

/** Why `npm start` must not seed its public demo credentials here, or null when it may. */
export function refuseDemoNetwork(network: string): string | null {
  return network === "mainnet"
    ? "npm start is the demo: it seeds public credentials, so it refuses NETWORK=mainnet. Run the deployables (control-plane/src/main.ts, worker.ts, the gateway) with your own configuration instead."
    : null;
}

/**
 * The comment `npm start` puts on the database it creates for the demo: its own, whatever it holds, and
 * whose (the checkout's id, scripts/lib/checkout.ts). Databases created before checkouts had ids carry
 * `LEGACY_DEMO_DATABASE_MARK`.
 */
export const demoDatabaseMark = (checkoutId: string) =>
  `staking-platform demo database of checkout ${checkoutId}, created by npm start`;
const LEGACY_DEMO_DATABASE_MARK = "staking-platform demo database, created by npm start";
const OWNER = /^staking-platform demo database of checkout (\S+),/;

/**
 * Creates (once) and marks the demo database `name` of checkout `checkoutId` on the server at `adminUrl`,
 * and returns its URL; a legacy demo database of that name is claimed. Returns the id of the checkout that
 * owns it instead when that is another checkout (never written to). A database of that name that
 * `npm start` did not create is left unmarked, and `refuseDemoDatabase` then judges it by what it holds.
 */
export async function ensureDemoDatabase(
  adminUrl: string,
  name: string,
  checkoutId: string,
): Promise<{ url: string } | { ownedBy: string }> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [found] = await admin<{ mark: string | null }[]>`
      select shobj_description(oid, 'pg_database') as mark from pg_database where datname = ${name}`;
    const owner = found?.mark ? OWNER.exec(found.mark)?.[1] : undefined;
    if (owner && owner !== checkoutId) return { ownedBy: owner };
    if (!found) await admin.unsafe(`create database "${name}"`);
    if (!found || found.mark === LEGACY_DEMO_DATABASE_MARK)
      await admin.unsafe(`comment on database "${name}" is '${demoDatabaseMark(checkoutId)}'`);
  } finally {
    await admin.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return { url: u.toString() };
}

/**
 * The demo credentials are public: they go into this checkout's own demo database (created and marked by
 * `npm start`, whatever the user did in it since: a dashboard sign-up, an organisation), or into one that
 * holds nothing else, never beside real organisations or gateway users, nor into another checkout's.
 */
export async function refuseDemoDatabase(db: Db, checkoutId: string): Promise<string | null> {
  const [own] = (await db.execute(
    sql`select shobj_description(oid, 'pg_database') as mark from pg_database where datname = current_database()`,
  )) as unknown as { mark: string | null }[];
  const owner = own?.mark ? OWNER.exec(own.mark)?.[1] : undefined;
  if (owner === checkoutId || own?.mark === LEGACY_DEMO_DATABASE_MARK) return null;
  if (owner)
    return `the database at DATABASE_URL is the demo database of another checkout (${owner}): npm start never writes into another checkout's data. Unset DATABASE_URL to let it use its own.`;
  const [org] = await db
    .select({ email: organisations.email })
    .from(organisations)
    .where(ne(organisations.email, DEMO.email))
    .limit(1);
  const [user] = await db
    .select({ email: gatewayUsers.email })
    .from(gatewayUsers)
    .where(ne(gatewayUsers.email, GATEWAY_DEMO.email))
    .limit(1);
  const other = org ?? user;
  return other
    ? `the database at DATABASE_URL holds real accounts (e.g. ${other.email}) and npm start did not create it: npm start seeds public demo credentials only into a database of its own. Unset DATABASE_URL to let it use its own, or point it at an empty database.`
    : null;
}

/**
 * Idempotent demo data: an approved organisation with an unrestricted scope and its staking key: `keep`
 * (the key printed last, scripts/lib/checkout.ts) while it still works, else a fresh one (keys are stored
 * hashed: a lost key cannot be shown again, so it is revoked and another issued).
 */
export async function seedDemo(
  db: Db,
  keep?: string,
): Promise<{ email: string; password: string; apiKey: string; keyId: string }> {
  const seeded = await createAccountOperatorService({ db }).openApprovedOrganisation({
    email: DEMO.email,
    orgName: DEMO.org,
    passwordHash: () => DEMO_PASSWORDS.hash(DEMO.password),
    label: DEMO.keyLabel,
    keep,
  });
  return { email: DEMO.email, password: DEMO.password, apiKey: seeded.apiKey, keyId: seeded.keyId };
}

export const GATEWAY_DEMO = {
  email: "gateway-demo@example.com",
  password: "GatewayDem0",
  providerKey: "demo",
  costInUsd: "0.001",
  usdPerCoin: "0.10",
  fundCoins: "1000",
  fundRef: "demo-seed",
} as const;

/**
 * Idempotent gateway demo: a gateway user with a ledger party funded once (ref `demo-seed`), its gateway
 * key (`keep` while it works, else a fresh one, the previous demo keys deactivated), the `demo` provider
 * pointing at `providerUrl`, and a coin rate when none is set; all through the operator's service, which
 * tells the gateways.
 */
export async function seedGatewayDemo(
  db: Db,
  redis: Redis,
  keys: RedisKeys,
  opts: { providerUrl: string; keep?: string | undefined },
) {
  const { providerUrl, keep } = opts;
  const gateway = createGatewayOperatorService({ db, redis, keys });
  const provider = { originUrl: providerUrl, status: "active" } as const;
  (await gateway.addProvider({
    key: GATEWAY_DEMO.providerKey,
    costInUsd: GATEWAY_DEMO.costInUsd,
    ...provider,
  })) ?? (await gateway.updateProvider(GATEWAY_DEMO.providerKey, provider));
  if (!(await gateway.currentCoinRate())) await gateway.setCoinRate(GATEWAY_DEMO.usdPerCoin);
  const account = await gateway.openAccount({
    email: GATEWAY_DEMO.email,
    passwordHash: () => DEMO_PASSWORDS.hash(GATEWAY_DEMO.password),
    coins: GATEWAY_DEMO.fundCoins,
    ref: GATEWAY_DEMO.fundRef,
    keep,
  });
  return {
    ...GATEWAY_DEMO,
    partyId: account.partyId,
    gatewayKey: account.apiKey,
    balance: formatCoins(account.balance),
  };
}
