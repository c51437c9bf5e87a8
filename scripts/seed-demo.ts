import { issueApiKey } from "@stake/db/api-key";
import type { Db } from "@stake/db/client";
import { coinsToBaseUnits, formatCoins } from "@stake/db/coin";
import { newId } from "@stake/db/ids";
import type { RedisKeys } from "@stake/db/redis/keys";
import { apiKeys, organisations } from "@stake/db/schema/accounts";
import { coinRates, gatewayApiKeys, gatewayUsers, providers } from "@stake/db/schema/gateway";
import { and, eq, isNull, ne, sql } from "drizzle-orm";
import type { Redis } from "ioredis";
import postgres from "postgres";
import { createPasswordHasher } from "../control-plane/src/auth/password.ts";
import { createAccountsRepo } from "../control-plane/src/features/account-v2/repo.ts";
import { createGatewayAccountRepo } from "../control-plane/src/features/gateway-account/repo.ts";
import { creditParty } from "../control-plane/src/features/gateway-settlement/funding.ts";

export const DEMO = {
  email: "demo@example.com",
  password: "DemoPassw0rd",
  org: "Demo Staking Org",
  keyLabel: "demo",
} as const;

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
  const repo = createAccountsRepo(db);
  let org = await repo.findOrganisationByEmail(DEMO.email);
  if (!org) {
    const passwordHash = await createPasswordHasher({ memoryCost: 19456, timeCost: 2 }).hash(DEMO.password);
    await repo.insertOrganisation({
      orgName: DEMO.org,
      email: DEMO.email,
      passwordHash,
      scope: {},
      signedUpVia: "v2",
    });
  }
  org = await repo.setOrganisationStatus(DEMO.email, "approved");
  const orgId = org!.id;
  const issued = issueApiKey("staking");
  const key = await db.transaction(async (tx) => {
    await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(
        and(eq(apiKeys.organisationId, orgId), eq(apiKeys.label, DEMO.keyLabel), isNull(apiKeys.revokedAt)),
      );
    return repo.insertKey({ organisationId: orgId, label: DEMO.keyLabel, issued }, tx);
  });
  return { email: DEMO.email, password: DEMO.password, apiKey: issued.key, keyId: key.id };
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
 * coin rate when none is set. Gateways drop their caches on the invalidation message.
 */
export async function seedGatewayDemo(db: Db, redis: Redis, keys: RedisKeys, providerUrl: string) {
  const repo = createGatewayAccountRepo(db);
  let user = await repo.findUserByEmail(GATEWAY_DEMO.email);
  if (!user) {
    const passwordHash = await createPasswordHasher({ memoryCost: 19456, timeCost: 2 }).hash(
      GATEWAY_DEMO.password,
    );
    user = await repo.insertUser({ id: newId("gatewayUser"), email: GATEWAY_DEMO.email, passwordHash });
  }
  const userId = user!.id;
  const party =
    (await repo.findPartyOfUser(userId)) ?? (await repo.insertParty({ id: newId("party"), userId }));
  const partyId = party!.id;

  await db
    .update(gatewayApiKeys)
    .set({ active: false, deactivatedAt: new Date() })
    .where(and(eq(gatewayApiKeys.userId, userId), eq(gatewayApiKeys.active, true)));
  const issued = issueApiKey("gateway");
  await repo.insertKey({ id: newId("gatewayKey"), userId, hash: issued.hash, start: issued.start });

  await db
    .insert(providers)
    .values({
      id: newId("provider"),
      key: GATEWAY_DEMO.providerKey,
      originUrl: providerUrl,
      costInUsd: GATEWAY_DEMO.costInUsd,
      status: "active",
    })
    .onConflictDoUpdate({ target: providers.key, set: { originUrl: providerUrl, status: "active" } });
  const [rate] = await db.select().from(coinRates).limit(1);
  if (!rate)
    await db.insert(coinRates).values({ id: newId("coinRate"), usdPerCoin: GATEWAY_DEMO.usdPerCoin });

  const funded = await creditParty(db, redis, keys, {
    partyId,
    amount: coinsToBaseUnits(GATEWAY_DEMO.fundCoins),
    ref: GATEWAY_DEMO.fundRef,
  });
  await redis.publish(keys.gateway.invalidations, "seed-demo");
  return { ...GATEWAY_DEMO, partyId, gatewayKey: issued.key, balance: formatCoins(funded.balance) };
}
