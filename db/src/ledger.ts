import { eq } from "drizzle-orm";
import type { Redis } from "ioredis";
import type { DbOrTx } from "./client.ts";
import { newId } from "./ids.ts";
import type { RedisKeys } from "./redis/keys.ts";
import { defineLedgerScripts } from "./redis/scripts.ts";
import { ledgerEntries } from "./schema/gateway.ts";

export class LedgerRefConflict extends Error {}

/**
 * Funds a party: records the credit in Postgres (unique `ref`), then applies it to the Redis balance.
 * Re-running with the same ref finds the existing entry and credit.lua skips it, so it credits once even
 * if a previous run died between the two steps.
 */
export async function creditParty(
  db: DbOrTx,
  redis: Redis,
  keys: RedisKeys,
  input: { partyId: string; amount: bigint; ref: string },
) {
  if (input.amount <= 0n) throw new RangeError("amount must be positive");
  await db
    .insert(ledgerEntries)
    .values({
      id: newId("ledgerEntry"),
      partyId: input.partyId,
      kind: "credit",
      amount: input.amount.toString(),
      externalRef: input.ref,
    })
    .onConflictDoNothing({ target: ledgerEntries.externalRef });
  const [entry] = await db.select().from(ledgerEntries).where(eq(ledgerEntries.externalRef, input.ref));
  if (
    !entry ||
    entry.partyId !== input.partyId ||
    entry.amount !== input.amount.toString() ||
    entry.kind !== "credit"
  ) {
    throw new LedgerRefConflict(`ref ${input.ref} is already used by a different ledger entry`);
  }
  const [outcome, balance] = await defineLedgerScripts(redis).gwCredit(
    keys.gateway.account(entry.partyId),
    keys.gateway.applied(entry.partyId),
    entry.id,
    entry.amount,
  );
  if (!entry.appliedAt) {
    await db.update(ledgerEntries).set({ appliedAt: new Date() }).where(eq(ledgerEntries.id, entry.id));
  }
  return { entryId: entry.id, applied: outcome === "OK", balance: BigInt(balance ?? "0") };
}

/** The hot balance of a party in base units. */
export async function readBalance(redis: Redis, keys: RedisKeys, partyId: string) {
  const [balance, reserved] = await redis.hmget(keys.gateway.account(partyId), "balance", "reserved");
  return { balance: BigInt(balance ?? "0"), reserved: BigInt(reserved ?? "0") };
}
