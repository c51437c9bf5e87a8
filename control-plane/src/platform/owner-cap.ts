import type { DbOrTx } from "@stake/db/client";
import { sql } from "drizzle-orm";

/**
 * Serialises the check-then-insert of a per-owner cap (gateway keys per user, staking keys per
 * organisation, webhook endpoints per owner): a transaction-scoped advisory lock on (what, owner), taken
 * before the count, so concurrent creations by one owner count one after another and the cap holds
 * exactly (before, 40 concurrent creations against caps of 20 and 10 made 27–40). Other owners never wait.
 * The caller's transaction holds it until it ends; a read-committed count after it sees every insert
 * committed before.
 */
export async function lockOwnerCap(tx: DbOrTx, what: string, ownerId: string): Promise<void> {
  await tx.execute(sql`select pg_advisory_xact_lock(hashtext(${what}), hashtext(${ownerId}))`);
}
