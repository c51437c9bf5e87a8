import type { DbOrTx } from "@stake/db/client";
import type { Redis } from "@stake/db/redis/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import { type AuditActor, OPERATOR, recordAudit } from "../../platform/audit.ts";
import { applyCredit } from "./hot-repo.ts";
import { insertCredit, markEntriesApplied } from "./ledger-repo.ts";

export { readBalance } from "./hot-repo.ts";

export class LedgerRefConflict extends Error {}

/**
 * Funds a party: records the credit in Postgres (unique `ref`) with its audit entry in one transaction,
 * then applies it to the Redis balance. Re-running with the same ref finds the existing entry (and writes
 * no second audit entry) and credit.lua skips it, so it credits once even if a previous run died between
 * the two steps.
 */
export async function creditParty(
  db: DbOrTx,
  redis: Redis,
  keys: RedisKeys,
  input: { partyId: string; amount: bigint; ref: string },
  actor: AuditActor = OPERATOR,
) {
  if (input.amount <= 0n) throw new RangeError("amount must be positive");
  const entry = await db.transaction(async (tx) => {
    const entry = await insertCredit(tx, input);
    if (
      !entry ||
      entry.partyId !== input.partyId ||
      entry.amount !== input.amount.toString() ||
      entry.kind !== "credit"
    ) {
      throw new LedgerRefConflict(`ref ${input.ref} is already used by a different ledger entry`);
    }
    if (entry.created)
      await recordAudit(tx, {
        actor,
        action: "party.fund",
        target: input.partyId,
        after: { entryId: entry.id, amount: entry.amount, ref: input.ref },
      });
    return entry;
  });
  const { applied, balance } = await applyCredit(redis, keys, entry);
  if (!entry.appliedAt) await markEntriesApplied(db, [entry.id]);
  return { entryId: entry.id, applied, balance };
}
