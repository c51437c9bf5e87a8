import assert from "node:assert/strict";
import { ledgerEntries, reservations } from "@stake/db/schema/index";
import { and, eq, inArray } from "drizzle-orm";
import { drainReservationLog } from "../../control-plane/src/features/gateway-settlement/drain.ts";
import type { SettlementDeps } from "../../control-plane/src/features/gateway-settlement/types.ts";
import type { GatewayHarness } from "../helpers/gateway.ts";

/** The settlement tests' checks of a party's books, Redis against Postgres. */
export function settlementBooks(h: GatewayHarness, deps: SettlementDeps) {
  async function sum(kind: "credit" | "debit", partyId: string) {
    const rows = await h.db
      .select({ amount: ledgerEntries.amount })
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.partyId, partyId), eq(ledgerEntries.kind, kind)));
    return rows.reduce((s, r) => s + BigInt(r.amount), 0n);
  }

  /**
   * Every reservation auditable: each settled paid reservation lists the debit that charged it, and each
   * debit's amount is the sum of the reservations listing it. Returns the charged reservations' ids.
   */
  async function audit(partyId: string) {
    const all = await rows(partyId);
    const entries = await debits(partyId);
    const byDebit = new Map<string, bigint>();
    for (const r of all) {
      if (r.status === "settled" && r.cost !== "0") assert.ok(r.debitId, `${r.id} lists its debit`);
      else assert.equal(r.debitId, null, `${r.id} (${r.status}) lists no debit`);
      if (r.debitId) byDebit.set(r.debitId, (byDebit.get(r.debitId) ?? 0n) + BigInt(r.cost));
    }
    assert.deepEqual(
      new Map(entries.map((e) => [e.id, BigInt(e.amount)])),
      byDebit,
      "debit = Σ its reservations",
    );
    assert.ok(entries.every((e) => e.appliedAt && e.externalRef === e.id));
    return all.filter((r) => r.debitId).map((r) => r.id);
  }

  /** docs/architecture.md §6 invariant, Redis against Postgres: balance = credits − settled debits, reserved = Σ open costs. */
  async function checkBooks(partyId: string) {
    await drainReservationLog(deps, partyId);
    const { balance, reserved, sum: openInRedis } = await h.checkInvariant(partyId);
    assert.equal(balance, (await sum("credit", partyId)) - (await sum("debit", partyId)), "balance");
    assert.equal(reserved, openInRedis, "reserved = Σ cost of open Redis records");
    const open = await h.db
      .select({ cost: reservations.cost })
      .from(reservations)
      .where(
        and(
          eq(reservations.partyId, partyId),
          inArray(reservations.status, ["request_in_flight", "registered", "queued"]),
        ),
      );
    assert.equal(
      reserved,
      open.reduce((s, r) => s + BigInt(r.cost), 0n),
      "reserved = Σ cost of open rows",
    );
    assert.ok(balance >= reserved, "balance − reserved never below zero");
  }

  async function rows(partyId: string) {
    return h.db.select().from(reservations).where(eq(reservations.partyId, partyId));
  }
  async function debits(partyId: string) {
    return h.db
      .select()
      .from(ledgerEntries)
      .where(and(eq(ledgerEntries.partyId, partyId), eq(ledgerEntries.kind, "debit")));
  }

  return { sum, audit, checkBooks, rows, debits };
}
