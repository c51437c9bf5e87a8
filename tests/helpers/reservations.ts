import type { Redis } from "@stake/db/redis/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import { createLedger, NO_PARTY_LIMITS } from "../../gateway/src/billing/ledger.ts";

/** Requests in flight at once while generating: the gateway's turn batcher packs them per party. */
const CONCURRENCY = 2_000;

/**
 * `perParty` paid requests served for each party, as a gateway records them but without HTTP: reserve.lua
 * then finalize.lua `registered` through the gateway's own ledger (its per-turn batches, its dirty-set
 * marks), so the settlement workers find exactly what a gateway under load leaves. Returns the
 * reservation ids. The parties must hold `perParty × cost`.
 */
export async function servedReservations(
  store: { redis: Redis; keys: RedisKeys },
  input: {
    partyIds: readonly string[];
    perParty: number;
    cost: bigint;
    costInUsd: string;
    ttlSeconds: number;
  },
): Promise<string[]> {
  const ledger = createLedger(store.redis, store.keys, input.ttlSeconds, NO_PARTY_LIMITS);
  const requests = input.partyIds.flatMap((partyId) =>
    Array.from({ length: input.perParty }, (_, i) => ({ partyId, idempotencyKey: `served-${i}` })),
  );
  const ids: string[] = [];
  for (let from = 0; from < requests.length; from += CONCURRENCY) {
    const chunk = requests.slice(from, from + CONCURRENCY);
    await Promise.all(
      chunk.map(async (r) => {
        const reserved = await ledger.reserve({
          ...r,
          providerKey: "echo",
          costInUsd: input.costInUsd,
          cost: input.cost,
          keyId: "",
        });
        if (!reserved.ok) throw new Error(`reserve for ${r.partyId}: ${reserved.code}`);
        const finalized = await ledger.finalize(reserved.reservation, "registered", {
          httpStatus: 200,
          upstreamMs: 1,
        });
        if (!finalized.ok) throw new Error(`finalize for ${r.partyId}: ${finalized.code}`);
        ids.push(reserved.reservation.id);
      }),
    );
  }
  return ids;
}
