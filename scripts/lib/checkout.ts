import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import type { Redis } from "@stake/db/redis/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import { ROOT } from "./infra.ts";

/**
 * Who `npm start` is: a random id written once to `.data/checkout.json`, with the names of the checkout's
 * own demo database and Redis key prefix. Two clones on one host share the system's Postgres and Redis (and
 * may meet each other's project-local servers), so a checkout knows its data by this id, written into what
 * it creates (the database's comment, a Redis key under its prefix), never by a port or a name alone.
 */
export interface Checkout {
  id: string;
  /** The demo database on the Postgres server `npm start` uses. */
  database: string;
  /** The Redis key prefix of the demo's processes (REDIS_PREFIX wins when set). */
  redisPrefix: string;
}

const dataDir = (root: string) => path.join(root, ".data");

/** This checkout's identity, created on its first start. */
export function loadCheckout(root = ROOT): Checkout {
  const file = path.join(dataDir(root), "checkout.json");
  if (existsSync(file)) return JSON.parse(readFileSync(file, "utf8")) as Checkout;
  const id = randomBytes(5).toString("hex");
  const checkout = isLegacy(root) ? { id, database: "staking_demo", redisPrefix: "stake:" } : ownNames(id);
  saveCheckout(checkout, root);
  return checkout;
}

/** The names a checkout gets when it has none to take over: its id in both. */
export function ownNames(id: string): Checkout {
  return { id, database: `staking_demo_${id}`, redisPrefix: `stake:${id}:` };
}

export function saveCheckout(checkout: Checkout, root = ROOT): void {
  mkdirSync(dataDir(root), { recursive: true });
  writeFileSync(path.join(dataDir(root), "checkout.json"), `${JSON.stringify(checkout, null, 2)}\n`);
}

/**
 * A checkout that ran `npm start` before checkouts had ids used the shared names (`staking_demo`, prefix
 * `stake:`), as its `.data/env` says: it keeps them (its sign-ups, its funded party), and claims them with
 * its new id on this start, so no other checkout takes them over.
 */
function isLegacy(root: string): boolean {
  const env = path.join(dataDir(root), "env");
  return existsSync(env) && /^DATABASE_URL=\S*\/staking_demo$/m.test(readFileSync(env, "utf8"));
}

/**
 * Claims the checkout's Redis prefix: a key under it holds the id of the checkout that first used it. Null
 * when it is this checkout's, else why this start must not write there.
 */
export async function claimRedisPrefix(redis: Redis, keys: RedisKeys, id: string): Promise<string | null> {
  await redis.set(keys.checkoutOwner, id, "NX");
  const owner = await redis.get(keys.checkoutOwner);
  return owner === id
    ? null
    : `the Redis key prefix "${keys.prefix}" belongs to another checkout (${owner}): set REDIS_PREFIX to a prefix of this checkout's own, or unset it`;
}

/**
 * The demo keys `npm start` printed last, kept in `.data/demo-keys.json` (mode 0600: they are secrets of
 * this checkout's demo), so a restart on the same data prints and accepts the same keys.
 */
export interface DemoKeys {
  stakingKey?: string;
  gatewayKey?: string;
}

const keysFile = (root: string) => path.join(dataDir(root), "demo-keys.json");

export function readDemoKeys(root = ROOT): DemoKeys {
  try {
    return JSON.parse(readFileSync(keysFile(root), "utf8")) as DemoKeys;
  } catch {
    return {};
  }
}

export function writeDemoKeys(keys: DemoKeys, root = ROOT): void {
  mkdirSync(dataDir(root), { recursive: true });
  writeFileSync(keysFile(root), `${JSON.stringify(keys, null, 2)}\n`, { mode: 0o600 });
  chmodSync(keysFile(root), 0o600);
}
