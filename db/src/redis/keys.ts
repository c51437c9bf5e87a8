import { hash } from "node:crypto";

/**
 * The scope (idempotency key, provider key, party id) of a reservation record: the party is in the key's
 * hash tag, the rest hashed so any key text fits. Shared by the gateway and the settlement worker.
 */
export function scopeHash(providerKey: string, idempotencyKey: string): string {
  // One-shot hash (no Hash object): this runs on every gateway request.
  return hash("sha256", `${providerKey}\0${idempotencyKey}`, "base64url");
}

/** How many buckets the settlement dirty set is sharded into (docs/operations.md, "Redis Cluster"). */
export const SETTLE_DIRTY_BUCKETS = 16;

/**
 * The dirty-set bucket of a party: FNV-1a (32-bit) of its id, so every process, gateway or worker, of
 * whatever release, puts a party in the same bucket.
 */
export function settleDirtyBucket(partyId: string): number {
  let h = 0x811c9dc5;
  for (let i = 0; i < partyId.length; i++) h = Math.imul(h ^ partyId.charCodeAt(i), 0x01000193);
  return (h >>> 0) % SETTLE_DIRTY_BUCKETS;
}

/**
 * Every Redis key the platform uses, built in one place so the gateway (which debits) and the control
 * plane (which credits and reads) can never disagree on the layout. `prefix` separates deployments and
 * test runs sharing one Redis. Keys that one Lua script touches together share a `{hash tag}` so the
 * script runs on Redis Cluster. A key no script shares is tagged only where a MULTI or BullMQ's scripts take it
 * with others; the cross-party dirty set is split into buckets, each in a slot of its own.
 */
export function createRedisKeys(prefix: string) {
  const p = prefix;
  const dirtyBucket = (bucket: number) => `${p}gw:settle:dirty:{settle-dirty-${bucket}}`;
  return {
    prefix: p,
    /** The id of the `npm start` checkout that owns this prefix (scripts/lib/checkout.ts): never another's data. */
    checkoutOwner: `${p}checkout`,
    /** rate-limiter-flexible key prefix for one limiter. */
    rateLimit: (name: string) => `${p}rl:${name}`,
    /** The organisation id a console session stands for, by the SHA-256 of its token (expires with it). */
    consoleSession: (tokenHash: string) => `${p}console:session:${tokenHash}`,
    /** Sorted set of one organisation's live console sessions (token hashes by expiry): their cap. */
    consoleSessions: (organisationId: string) => `${p}console:org:${organisationId}`,
    /**
     * BullMQ queue prefix, hash-tagged: BullMQ's scripts take several keys of a queue at once, so on Redis
     * Cluster every key of every queue must share one slot.
     */
    queuePrefix: `{${p}bull}`,
    gateway: {
      /**
       * Hash of one party: {balance, reserved}, integer coin base units (int64 via HINCRBY), and the
       * counters reserve.lua and finalize.lua keep beside them (reserve.lua's header): the UTC day's and
       * month's spend ("d"/"dv", "m"/"mv": the window and the coins reserved in it), the request window
       * ("rn"/"re") and the failure window ("fn"/"fe"); and the counters of the party's API keys
       * ("<keyId>:…": reserve.lua adds, finalize.lua takes a release back): per key its last use, its spend
       * in the current UTC day and month, and its named limits' windows. One hash, so the scripts reach
       * every counter without knowing the keys, and a lone request reads and writes them in one command each.
       */
      account: (partyId: string) => `${p}gw:{${partyId}}:acct`,
      /** Set of ledger entry ids already applied to the balance (makes credit.lua idempotent). */
      applied: (partyId: string) => `${p}gw:{${partyId}}:applied`,
      /** Reservation record; `scopeHash` is sha256(providerKey, idempotencyKey) so any key text fits. */
      reservation: (partyId: string, scopeHash: string) => `${p}gw:{${partyId}}:rsv:${scopeHash}`,
      /**
       * Stream of the party's reservation events (every reserve, finalize and settle step appends the
       * compact record), drained into Postgres by the settlement worker.
       */
      reservationLog: (partyId: string) => `${p}gw:{${partyId}}:log`,
      /**
       * The bucket of the set of parties with undrained events that holds `partyId`
       * (settleDirtyBucket). Cross-party, so it cannot be touched by the party-tagged scripts: they answer
       * MARK when they start an empty stream and the gateway then SADDs the party; a worker re-marks a party
       * whose stream still holds events after its drain, and every party each minute. Sharded in
       * SETTLE_DIRTY_BUCKETS sets, each under a hash tag of its own, so on Redis Cluster the marks of every
       * party do not all land on one node.
       */
      settleDirty: (partyId: string) => dirtyBucket(settleDirtyBucket(partyId)),
      /** Every bucket of the dirty set, which the settlement worker drains. */
      settleDirtyBuckets: Array.from({ length: SETTLE_DIRTY_BUCKETS }, (_, i) => dirtyBucket(i)),
      /**
       * The settlement worker's lease on one party (lease.ts in gateway-settlement): its holder's token,
       * expiring unless renewed, so one worker at a time settles the party and a dead one's party is freed.
       */
      settleLease: (partyId: string) => `${p}gw:{${partyId}}:lease`,
      /**
       * Hash of the running gateways' request deadlines (gateway-deadlines.ts), which the settlement
       * worker's reaper must outwait.
       */
      deadlines: `${p}gw:deadlines`,
      /** Pub/sub channel: key, provider and rate changes that gateway caches must drop. */
      invalidations: `${p}gw:invalidate`,
    },
    /** Sui follows share one hash tag: a follow updates an organisation's set and the global one in one MULTI. */
    tenancy: {
      /** Sorted set of the addresses an organisation had the Sui worker follow, scored by last query (ms). */
      suiFollowsOf: (organisationId: string) => `${p}tn:{sui}:follows:${organisationId}`,
      /** Sorted set of every followed Sui address (outside scopes), scored by its last query by anyone (ms). */
      suiFollowed: `${p}tn:{sui}:followed`,
    },
    /** Last Hyperliquid nonce (ms) handed out for one delegator address (lower-case hex). */
    hyperliquidNonce: (address: string) => `${p}hl:nonce:${address.toLowerCase()}`,
    /** Marks a signed Hyperliquid action (signer, nonce) as in flight or relayed, to refuse replays. */
    /** A delegatorHistory hash already reported as some broadcast's transactionHash. */
    hyperliquidHashReported: (hash: string) => `${p}hl:hash:${hash.toLowerCase()}`,
    hyperliquidRelayed: (signer: string, nonce: number) => `${p}hl:relayed:${signer.toLowerCase()}:${nonce}`,
  };
}

export type RedisKeys = ReturnType<typeof createRedisKeys>;
