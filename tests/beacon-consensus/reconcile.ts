import assert from "node:assert/strict";
import { loadLodestar } from "./load.ts";

const { MIN_SLASHING_PENALTY_QUOTIENT_BELLATRIX, MIN_SLASHING_PENALTY_QUOTIENT_ELECTRA, SLOTS_PER_EPOCH } =
  await loadLodestar();
type ApiClient = import("./lodestar.ts").ApiClient;

const epochEnd = (epoch: number) => (epoch + 1) * SLOTS_PER_EPOCH - 1;

/**
 * Checks every validator's balance change over each of epochs `first`..`last` against the devnet's rewards
 * endpoints, read with `@lodestar/api`: the attestation rewards of two epochs before (paid by the epoch
 * processing at the epoch's start), the proposer and sync-committee rewards of its blocks, its payloads'
 * withdrawals and its slashings' initial penalty (the block's fork's quotient). Returns how many balances it
 * checked and how many slashings it met.
 */
export async function reconcile(api: ApiClient, first: number, last: number) {
  const balancesAt = async (slot: number) =>
    new Map(
      (await api.beacon.getStateValidatorBalances({ stateId: slot }))
        .value()
        .map((b) => [b.index, b.balance]),
    );
  let checked = 0;
  let slashings = 0;
  for (let epoch = first; epoch <= last; epoch++) {
    const before = await balancesAt(epochEnd(epoch - 1));
    const after = await balancesAt(epochEnd(epoch));
    const expected = new Map<number, number>();
    const add = (i: number, amount: number) => expected.set(i, (expected.get(i) ?? 0) + amount);
    const att = (await api.beacon.getAttestationsRewards({ epoch: epoch - 2 })).value();
    for (const r of att.totalRewards) add(r.validatorIndex, r.head + r.target + r.source + r.inactivity);
    for (let slot = epoch * SLOTS_PER_EPOCH; slot <= epochEnd(epoch); slot++) {
      const block = await api.beacon.getBlockV2({ blockId: slot });
      if (block.status === 404) continue;
      const { message } = block.value();
      const proposer = (await api.beacon.getBlockRewards({ blockId: slot })).value();
      assert.equal(proposer.proposerIndex, message.proposerIndex);
      add(proposer.proposerIndex, proposer.total);
      for (const s of (await api.beacon.getSyncCommitteeRewards({ blockId: slot, validatorIds: [] })).value())
        add(s.validatorIndex, s.reward);
      const body = message.body as {
        executionPayload: { withdrawals: { validatorIndex: number; amount: bigint }[] };
      };
      for (const w of body.executionPayload.withdrawals) add(w.validatorIndex, -Number(w.amount));
      const quotient =
        block.meta().version === "electra"
          ? MIN_SLASHING_PENALTY_QUOTIENT_ELECTRA
          : MIN_SLASHING_PENALTY_QUOTIENT_BELLATRIX;
      for (const s of (
        message.body as { proposerSlashings: { signedHeader1: { message: { proposerIndex: number } } }[] }
      ).proposerSlashings) {
        const slashed = s.signedHeader1.message.proposerIndex;
        const v = (await api.beacon.getStateValidator({ stateId: slot - 1, validatorId: slashed })).value();
        add(slashed, -Math.floor(v.validator.effectiveBalance / quotient));
        slashings++;
      }
    }
    for (const [index, balance] of after) {
      const change = balance - (before.get(index) ?? 0);
      assert.equal(change, expected.get(index) ?? 0, `validator ${index}, epoch ${epoch}`);
      checked++;
    }
  }
  return { checked, slashings };
}
