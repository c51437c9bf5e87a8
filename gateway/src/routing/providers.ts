import type { Db } from "@stake/db/client";
import { coinRates, providers } from "@stake/db/schema/index";
import { desc, eq } from "drizzle-orm";
import type { SliceTerms } from "../billing/slices.ts";

/** Longest slice honoured: a day (a timer cannot wait 25 days, and nothing sensible bills slower). */
const MAX_SLICE_SECONDS = 86_400;

export interface ProviderRecord {
  key: string;
  origin: string;
  basePath: string;
  costInUsd: string;
  status: "active" | "disabled" | "degraded";
  /** How an upgraded connection is billed after its first slice (docs/architecture.md §11). */
  upgradeSlice: SliceTerms;
}

/** Provider key → record (null when unknown), for the cache loader. */
export function createProviderLookup(db: Db) {
  return async (key: string): Promise<ProviderRecord | null> => {
    const [row] = await db.select().from(providers).where(eq(providers.key, key)).limit(1);
    if (!row) return null;
    const url = new URL(row.originUrl);
    return {
      key: row.key,
      origin: url.origin,
      basePath: url.pathname,
      costInUsd: row.costInUsd,
      status: row.status,
      upgradeSlice: {
        costInUsd: row.upgradeSliceUsd ?? row.costInUsd,
        ms: Math.min(Math.max(row.upgradeSliceSeconds, 1), MAX_SLICE_SECONDS) * 1000,
        messages: row.upgradeSliceMessages,
      },
    };
  };
}

/** The current coin rate (USD per coin) as a decimal string, or null before the operator sets one. */
export function createRateLookup(db: Db) {
  return async (): Promise<string | null> => {
    const [row] = await db.select().from(coinRates).orderBy(desc(coinRates.createdAt)).limit(1);
    return row?.usdPerCoin ?? null;
  };
}
