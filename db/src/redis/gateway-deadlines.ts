import type { Redis } from "./client.ts";
import type { RedisKeys } from "./keys.ts";

/**
 * Each running gateway publishes its GATEWAY_REQUEST_DEADLINE_MS, so the settlement worker checks its reap
 * age against the deadlines actually in force rather than against its own copy of the variable (a gateway
 * configured with a longer deadline would otherwise see its requests released while it still serves them).
 *
 * One hash, `gw:deadlines`: field = gateway instance id, value = `<deadlineMs>:<expiresAtMs>`. A gateway
 * refreshes its field every PUBLISH_EVERY_MS and removes it on shutdown; a field past its expiry belongs to
 * a gateway that died, and the reader drops it.
 */
export const PUBLISH_EVERY_MS = 20_000;
const LIFETIME_MS = 3 * PUBLISH_EVERY_MS;

export function publishDeadline(
  redis: Pick<Redis, "hset">,
  keys: RedisKeys,
  gateway: { instanceId: string; deadlineMs: number },
  now = Date.now(),
) {
  return redis.hset(keys.gateway.deadlines, gateway.instanceId, `${gateway.deadlineMs}:${now + LIFETIME_MS}`);
}

export function withdrawDeadline(redis: Pick<Redis, "hdel">, keys: RedisKeys, instanceId: string) {
  return redis.hdel(keys.gateway.deadlines, instanceId);
}

/** The longest deadline of the gateways alive at `now` (0 when none has published); drops the dead ones. */
export async function longestGatewayDeadline(
  redis: Pick<Redis, "hgetall" | "hdel">,
  keys: RedisKeys,
  now = Date.now(),
): Promise<number> {
  const all = await redis.hgetall(keys.gateway.deadlines);
  let longest = 0;
  const dead: string[] = [];
  for (const [instanceId, value] of Object.entries(all)) {
    const [deadline, expires] = value.split(":").map(Number);
    if (!(Number(expires) > now)) dead.push(instanceId);
    else longest = Math.max(longest, Number(deadline) || 0);
  }
  if (dead.length) await redis.hdel(keys.gateway.deadlines, ...dead);
  return longest;
}
