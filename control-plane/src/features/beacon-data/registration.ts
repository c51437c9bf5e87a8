import { waitUntil } from "../../background-job.ts";
import { AppError, notIndexedYet } from "../../errors.ts";
import { assertInScope, type StakingAuth } from "../../http/api-key-auth.ts";
import type { BeaconApi } from "./client.ts";
import type { RegistrationsQueue } from "./jobs.ts";
import type { BeaconDataRepo } from "./repo.ts";

export interface RegistrationDeps {
  repo: BeaconDataRepo;
  /** Where a registration asks the worker for its roll-up. */
  registrations: Pick<RegistrationsQueue, "add">;
  /** How long a registration waits for the worker's roll-up before answering 503 (default 5 s). */
  registerWaitMs?: number;
  /** Whether the beacon chain knows a pubkey: its registry at the head, or its pending deposits. */
  beacon: Pick<BeaconApi, "validators" | "pendingDeposits">;
  /** Counts one registration call of the organisation; throws RATE_LIMITED past its budget. */
  limit: (organisationId: string) => Promise<unknown>;
  /** Pubkeys one organisation may register. */
  maxRegistered: number;
}

/**
 * A pubkey nobody deposited for would be read every epoch and backfilled to the index's start for
 * nothing: only pubkeys in the registry at the head or with a pending deposit are registered.
 */
async function assertKnown(beacon: RegistrationDeps["beacon"], pubkeys: string[]): Promise<void> {
  const inRegistry = new Set(
    (await beacon.validators("head", pubkeys)).map((v) => v.validator.pubkey.toLowerCase()),
  );
  let unknown = pubkeys.filter((p) => !inRegistry.has(p));
  // The deposit queue (megabytes on mainnet) only for pubkeys the registry does not have yet.
  if (unknown.length) {
    const pending = new Set((await beacon.pendingDeposits("head")).map((d) => d.pubkey.toLowerCase()));
    unknown = unknown.filter((p) => !pending.has(p));
  }
  if (unknown.length) {
    throw new AppError(
      "VALIDATOR_UNKNOWN",
      "The beacon chain knows no validator and no pending deposit for these pubkeys",
      { details: unknown.map((p) => ({ field: `pubkeys`, message: `unknown pubkey ${p}` })) },
    );
  }
}

/** Follows pubkeys the organisation stakes with elsewhere (idempotent); scope rule applies. */
export function createRegister(deps: RegistrationDeps) {
  const { repo } = deps;
  return async function register(auth: StakingAuth, pubkeys: string[]) {
    for (const p of pubkeys) assertInScope(auth, "ethereum", p, "validator");
    const unique = [...new Set(pubkeys)];
    const org = auth.organisationId;
    await deps.limit(org);
    const fresh = await repo.notRegistered(org, unique);
    if (fresh.length) {
      // Checked before the insert: concurrent registrations may each pass, by at most 100 pubkeys each.
      if ((await repo.registeredCount(org)) + fresh.length > deps.maxRegistered) {
        throw new AppError(
          "REGISTRATION_LIMIT_REACHED",
          `An organisation may register at most ${deps.maxRegistered} pubkeys`,
        );
      }
      await assertKnown(deps.beacon, fresh);
    }
    await repo.register(org, unique);
    // The organisation's rollup gets the pubkeys' indexed days from the worker, never from here
    // (docs/spec.md, our additions): enqueued, then awaited for a moment.
    if (!(await repo.rolledUp(org, unique))) {
      await deps.registrations.add("roll-up", {}, { removeOnComplete: 100, removeOnFail: 100 });
      if (!(await waitUntil(() => repo.rolledUp(org, unique), deps.registerWaitMs ?? 5_000))) {
        throw notIndexedYet("Registered; the worker has not counted the pubkeys yet, retry shortly", 5);
      }
    }
    return { registered: unique };
  };
}
