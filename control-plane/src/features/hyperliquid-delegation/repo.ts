import type { Redis } from "@stake/db/redis/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import { runHyperliquidNonce } from "@stake/db/redis/scripts";

/** Kept past Hyperliquid's nonce window (T − 2 days, T + 1 day) so a key never expires while it matters. */
const NONCE_TTL_MS = 3 * 86_400_000;
/** How long a relayed (signer, nonce) stays refused locally; after it Hyperliquid itself refuses the stale nonce. */
const RELAYED_TTL_MS = 3 * 86_400_000;

/** Redis state of the delegation area: nonce allocation and the local replay guard. */
export function createHyperliquidRepo(deps: { redis: Redis; keys: RedisKeys }) {
  const { redis, keys } = deps;
  return {
    /** Next nonce for `address`: a ms time, strictly increasing across all API processes. */
    async nextNonce(address: string, nowMs: number): Promise<number> {
      return runHyperliquidNonce(redis, keys, { address, nowMs, ttlMs: NONCE_TTL_MS });
    },
    /** Claims (signer, nonce) for relay; false if it was already claimed. */
    async claimRelay(signer: string, nonce: number): Promise<boolean> {
      return (
        (await redis.set(keys.hyperliquidRelayed(signer, nonce), "1", "PX", RELAYED_TTL_MS, "NX")) === "OK"
      );
    },
    /** Reserves a delegatorHistory hash for one broadcast answer; false if another broadcast reported it. */
    async claimHash(hash: string): Promise<boolean> {
      return (await redis.set(keys.hyperliquidHashReported(hash), "1", "PX", RELAYED_TTL_MS, "NX")) === "OK";
    },
    /** Gives a claim back when Hyperliquid refused the action or could not be reached, so it may be retried. */
    async releaseRelay(signer: string, nonce: number): Promise<void> {
      await redis.del(keys.hyperliquidRelayed(signer, nonce));
    },
  };
}

export type HyperliquidRepo = ReturnType<typeof createHyperliquidRepo>;
