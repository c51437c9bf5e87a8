import { randomBytes } from "node:crypto";
import { hostname } from "node:os";
import { runLease } from "@stake/db/redis/scripts";
import type { SettlementDeps, SettlementOptions } from "./types.ts";

/**
 * One settlement worker at a time per party, however many run (docs/gateway.md, "Several settlement
 * workers"): a lease in Redis, `SET NX PX` of a token unique to this holding, at the party's key
 * `gw:{party}:lease`, so it sits in the party's hash slot beside the stream and records it guards (Redis
 * Cluster). Renewed and released only by lease.lua's compare-and-set on the token; a worker that dies
 * stops renewing, and the lease expires `ttlMs` later for another worker to take the party over.
 *
 * Redis rather than Postgres row locks: a `FOR UPDATE SKIP LOCKED` or advisory lock lives as long as its
 * transaction or session, so a worker would pin a pooled connection for a party's whole settlement, which
 * interleaves Redis steps with several short Postgres transactions on other connections.
 *
 * The lease is for efficiency, not for the books: a worker that stalls past its lease (a long GC, a Postgres
 * lock wait) may still commit after another took over. Every commit is idempotent by reservation id
 * (settle.lua answers ALREADY, Postgres moves a status only forward and debits only the rows a statement
 * moved), so such a late commit charges nothing twice; the fence (`fenced`) only stops it early.
 */

/** This process in its lease tokens, so `GET …:lease` shows who settles a party. */
const HOLDER = `${hostname()}:${process.pid}`;

export interface PartyLease {
  readonly partyId: string;
  readonly token: string;
  /** Extends the lease by its length; false when it had been lost. */
  renew(): Promise<boolean>;
  /** Drops the lease if still held (a lost one belongs to someone else now). */
  release(): Promise<boolean>;
}

/** Thrown at a settlement step when the worker finds its lease gone: another worker has the party. */
export class LeaseLostError extends Error {
  constructor(readonly partyId: string) {
    super(`settlement lease on ${partyId} lost`);
    this.name = "LeaseLostError";
  }
}

/** The party's lease for `ttlMs`, or undefined when another worker holds it. */
export async function acquireLease(
  deps: Pick<SettlementDeps, "redis" | "keys">,
  partyId: string,
  ttlMs: number,
): Promise<PartyLease | undefined> {
  const token = `${HOLDER}:${randomBytes(6).toString("hex")}`;
  const set = await deps.redis.set(deps.keys.gateway.settleLease(partyId), token, "PX", ttlMs, "NX");
  if (set !== "OK") return undefined;
  const held = { partyId, token };
  return {
    ...held,
    renew: () => runLease(deps.redis, deps.keys, { ...held, op: "renew", ttlMs }),
    release: () => runLease(deps.redis, deps.keys, { ...held, op: "release" }),
  };
}

/** Renews the lease, or throws LeaseLostError. */
export async function holdLease(lease: PartyLease): Promise<void> {
  if (!(await lease.renew())) throw new LeaseLostError(lease.partyId);
}

/**
 * The options with the lease renewed at every settlement step, before any hook: each Postgres commit is
 * preceded by a step (`settled-in-redis`), so a worker that lost its lease stops before committing.
 */
export function fenced<O extends Pick<SettlementOptions, "afterStep">>(options: O, lease: PartyLease): O {
  return {
    ...options,
    async afterStep(step, partyId) {
      await holdLease(lease);
      await options.afterStep?.(step, partyId);
    },
  };
}
