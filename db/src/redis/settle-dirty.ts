import type { Redis } from "./client.ts";
import type { RedisKeys } from "./keys.ts";

/**
 * The settlement dirty set, sharded in buckets (keys.ts `settleDirty`): the gateway and the worker mark
 * parties here, the worker takes them off. A bucket is one key of its own slot, so each command names one.
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
 * Takes up to about `count` parties off the dirty set: an equal share of each bucket (one SPOP each, side
 * by side), so a pass drains every bucket and no busy bucket starves the others.
 */
export async function takeDirty(redis: Pick<Redis, "spop">, keys: RedisKeys, count: number) {
  const buckets = keys.gateway.settleDirtyBuckets;
  const share = Math.max(1, Math.ceil(count / buckets.length));
  const taken = await Promise.all(buckets.map((bucket) => redis.spop(bucket, share)));
  return taken.flat();
}
