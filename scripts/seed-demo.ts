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

/** The comment `npm start` puts on the database it creates for the demo: its own, whatever it holds. */
export const DEMO_DATABASE_MARK = "staking-platform demo database, created by npm start";
export const DEMO_DATABASE = "staking_demo";

/**
 * Creates (once) and marks the demo's own database on the server at `adminUrl`, and returns its URL. A
 * database of that name that `npm start` did not create is left unmarked, and `refuseDemoDatabase` then
 * judges it by what it holds.
 */
export async function ensureDemoDatabase(adminUrl: string, name: string = DEMO_DATABASE): Promise<string> {
  const admin = postgres(adminUrl, { max: 1, onnotice: () => {} });
  try {
    const [found] = await admin`select 1 from pg_database where datname = ${name}`;
    if (!found) {
      await admin.unsafe(`create database "${name}"`);
      await admin.unsafe(`comment on database "${name}" is '${DEMO_DATABASE_MARK}'`);
    }
  } finally {
    await admin.end();
  }
  const u = new URL(adminUrl);
  u.pathname = `/${name}`;
  return u.toString();
}

/**
 * The demo credentials are public: they go into the demo's own database (created and marked by
 * `npm start`, whatever the user did in it since: a dashboard sign-up, an organisation), or into one that
 * holds nothing else, never beside real organisations or gateway users.
 */
export async function refuseDemoDatabase(db: Db): Promise<string | null> {
  const [own] = (await db.execute(
    sql`select shobj_description(oid, 'pg_database') as mark from pg_database where datname = current_database()`,
  )) as unknown as { mark: string | null }[];
  if (own?.mark === DEMO_DATABASE_MARK) return null;
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
    ? `the database at DATABASE_URL holds real accounts (e.g. ${other.email}) and npm start did not create it: npm start seeds public demo credentials only into a database of its own. Unset DATABASE_URL to let it use its own (${DEMO_DATABASE}), or point it at an empty database.`
    : null;
}

/**
 * Idempotent demo data: an approved organisation with an unrestricted scope and one fresh staking key.
 * Keys are stored hashed, so a restart cannot show the old demo key again: it revokes it and issues another.
 */
export async function seedDemo(
  db: Db,
): Promise<{ email: string; password: string; apiKey: string; keyId: string }> {
  const seeded = await createAccountOperatorService({ db }).openApprovedOrganisation({
    email: DEMO.email,
    orgName: DEMO.org,
    passwordHash: () => DEMO_PASSWORDS.hash(DEMO.password),
    label: DEMO.keyLabel,
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
 * Idempotent gateway demo: a gateway user with a ledger party funded once (ref `demo-seed`), a fresh
 * gateway key (the previous demo keys are deactivated), the `demo` provider pointing at `providerUrl`, and a
 * coin rate when none is set; all through the operator's service, which tells the gateways.
 */
export async function seedGatewayDemo(db: Db, redis: Redis, keys: RedisKeys, providerUrl: string) {
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
  });
  return {
    ...GATEWAY_DEMO,
    partyId: account.partyId,
    gatewayKey: account.apiKey,
    balance: formatCoins(account.balance),
  };
}
