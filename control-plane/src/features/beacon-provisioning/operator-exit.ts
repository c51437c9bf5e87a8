import type { StakingAuth } from "../../http/api-key-auth.ts";
import type { OwnStep } from "../beacon-data/tracking.ts";
import { assertExitable, assertNoPendingWithdrawals, type ExitChecks, type ExitDeps } from "./exit-checks.ts";
import type { ValidatorRow } from "./repo.ts";

/**
 * The operator's exit of the organisation's validators (docs/spec.md "Exits, withdrawals and
 * consolidations"): EXIT_REQUESTED for all once they pass the chain's checks, then each exit signed and sent
 * to the node's pool, EXIT_SENT for those the node accepted. Synchronous: at most 100 signatures (0.5 s for
 * 100 with their self-check, measured under load) and node calls; a validator the node refused stays
 * EXIT_REQUESTED with the node's reason, and a new request retries it.
 */
export function createOperatorExit(deps: ExitDeps, checks: ExitChecks) {
  /**
   * The organisation's own steps, each written with its `validator.status_changed` event under the
   * indexer's lock (beacon-data's status-changes.ts), the way the indexer writes the chain's.
   */
  const record = (steps: OwnStep[]) =>
    deps.db.transaction(async (tx) => {
      await deps.tracking.lockStatuses(tx);
      await deps.tracking.recordOwnSteps(tx, steps);
    });

  return async function exit(auth: StakingAuth, pubkeys: string[]) {
    await deps.limit(auth.organisationId);
    const validators = await checks.owned(auth, pubkeys);
    const ctx = await checks.chainContext();
    const checked = pubkeys.map((p) => {
      const v = assertExitable(p, validators.get(p)?.chain, ctx);
      assertNoPendingWithdrawals(p, v, ctx);
      return { pubkey: p, row: validators.get(p)?.row as ValidatorRow, index: Number(v.index) };
    });
    const step = (c: (typeof checked)[number], status: OwnStep["status"]): OwnStep => ({
      pubkey: c.pubkey,
      status,
      time: ctx.time,
      epoch: ctx.epoch,
      validatorIndex: c.index,
      organisationId: auth.organisationId,
    });
    await record(checked.map((c) => step(c, "EXIT_REQUESTED")));
    const results: {
      validatorAddress: string;
      validatorIndex: number;
      epoch: number;
      status: OwnStep["status"];
      reason?: string;
    }[] = [];
    for (const c of checked) {
      const sent = await deps.beacon.submitVoluntaryExit(checks.sign(c.row, c.index, ctx.epoch));
      results.push({
        validatorAddress: c.pubkey,
        validatorIndex: c.index,
        epoch: ctx.epoch,
        status: sent.accepted ? "EXIT_SENT" : "EXIT_REQUESTED",
        ...(sent.accepted ? {} : { reason: sent.message }),
      });
    }
    const accepted = checked.filter((_, i) => results[i]?.status === "EXIT_SENT");
    await record(accepted.map((c) => step(c, "EXIT_SENT")));
    deps.logger.info(
      { organisationId: auth.organisationId, validators: results.length, sent: accepted.length },
      "voluntary exits sent",
    );
    return { results };
  };
}
