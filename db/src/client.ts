import { drizzle } from "drizzle-orm/postgres-js";
import postgres from "postgres";
import * as schema from "./schema/index.ts";

export interface DbOptions {
  /** Pool size; the control plane and the gateway size it from their own config. */
  max?: number;
  /** Name shown in pg_stat_activity. */
  applicationName?: string;
}

/** Builds a drizzle client over postgres.js. No env reads: the caller passes the URL (docs/architecture.md §1). */
export function createDb(url: string, options: DbOptions = {}) {
  const sql = postgres(url, {
    max: options.max ?? 10,
    onnotice: () => {},
    connection: { application_name: options.applicationName ?? "staking-platform" },
  });
  const db = drizzle(sql, { schema, casing: "snake_case" });
  return { db, sql, close: () => sql.end({ timeout: 5 }) };
}

export type Db = ReturnType<typeof createDb>["db"];
/** A drizzle handle that may be the pool or an open transaction, for repo functions `(db, args)`. */
export type DbOrTx = Db | Parameters<Parameters<Db["transaction"]>[0]>[0];
