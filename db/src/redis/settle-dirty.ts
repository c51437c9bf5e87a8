import type { Redis } from "./client.ts";
import type { RedisKeys } from "./keys.ts";

/**
 * The settlement dirty set, sharded in buckets (keys.ts `settleDirty`): the gateway and the worker mark
 * parties here, the worker samples them and takes each off once settled. A bucket is one key of its own slot, so each command names one.
 */

/** Adds parties to the dirty set: one SADD per bucket they fall in. */
export async function markDirty(redis: Pick<Redis, "sadd">, keys: RedisKeys, partyIds: Iterable<string>) {
  const byBucket = new Map<string, string[]>();
  for (const partyId of partyIds) {
    const bucket = keys.gateway.settleDirty(partyId);
    const ids = byBucket.get(bucket);
    if (ids) ids.push(partyId);
    else byBucket.set(bucket, [partyId]);
  }
  await Promise.all([...byBucket].map(([bucket, ids]) => redis.sadd(bucket, ...ids)));
}

/**
 * Up to about `count` dirty parties, left in the set: an equal share of each bucket (one SRANDMEMBER each,
 * side by side), so no busy bucket starves the others. A party leaves the set only once settled
 * (`unmarkDirty`), so the parties of a worker killed mid-pass are still there for the others.
 */
export async function sampleDirty(redis: Pick<Redis, "srandmember">, keys: RedisKeys, count: number) {
  const buckets = keys.gateway.settleDirtyBuckets;
  const share = Math.max(1, Math.ceil(count / buckets.length));
  const sampled = await Promise.all(buckets.map((bucket) => redis.srandmember(bucket, share)));
  return sampled.flat();
}

export async function isDirty(redis: Pick<Redis, "sismember">, keys: RedisKeys, partyId: string) {
  return (await redis.sismember(keys.gateway.settleDirty(partyId), partyId)) === 1;
}

export async function unmarkDirty(redis: Pick<Redis, "srem">, keys: RedisKeys, partyId: string) {
  await redis.srem(keys.gateway.settleDirty(partyId), partyId);
}

/** How many parties are dirty, over every bucket. */
export async function dirtyCount(redis: Pick<Redis, "scard">, keys: RedisKeys) {
  const counts = await Promise.all(keys.gateway.settleDirtyBuckets.map((bucket) => redis.scard(bucket)));
  return counts.reduce((a, b) => a + b, 0);
}
