import type { Db } from "@stake/db/client";
import { coinRates, providers } from "@stake/db/schema/index";
import { desc, eq } from "drizzle-orm";

export interface ProviderRecord {
  key: string;
  origin: string;
  basePath: string;
  costInUsd: string;
  status: "active" | "disabled" | "degraded";
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
