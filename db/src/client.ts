import { withReplicas } from "drizzle-orm/pg-core";
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

/**
 * The read handle of the read-heavy data endpoints over DATABASE_REPLICA_URLS (docs/deployment.md, "Read
 * replicas"): drizzle's `withReplicas` sends its select builders to a replica, taken in turn; raw `execute`,
 * which drizzle keeps on the primary because it may write, is sent to a replica as well, so the handle is
 * for reads only. No replica: the primary itself.
 */
export function createReadDb(primary: Db, urls: readonly string[], options: DbOptions = {}) {
  const replicas = urls.map((url) => createDb(url, options));
  const [first, ...rest] = replicas.map((r) => r.db);
  if (!first) return { reads: primary, close: async () => {} };
  let turn = 0;
  const pick = (list: Db[]) => list[turn++ % list.length] as Db;
  const replicated = withReplicas(primary, [first, ...rest], pick);
  const execute: Db["execute"] = (query) => pick(replicated.$replicas).execute(query);
  const reads = { ...replicated, execute } as unknown as Db;
  return { reads, close: async () => void (await Promise.all(replicas.map((r) => r.close()))) };
}
