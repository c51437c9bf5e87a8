import { base58 } from "@scure/base";

export const U64_MAX = 0xffff_ffff_ffff_ffffn;

export interface StakeState {
  kind: "uninitialized" | "initialized" | "delegated" | "rewardsPool";
  staker: string | null;
  withdrawer: string | null;
  lockup: { unixTimestamp: bigint; epoch: bigint; custodian: string } | null;
  delegation: {
    voter: string;
    stake: bigint;
    activationEpoch: bigint;
    /** null when not deactivated (u64::MAX on chain). */
    deactivationEpoch: bigint | null;
    creditsObserved: bigint;
  } | null;
}

const KINDS = ["uninitialized", "initialized", "delegated", "rewardsPool"] as const;

/** Decodes `StakeStateV2` (200 bytes; offsets from docs/chains/solana.md §1.4). Throws on other sizes or tags. */
export function decodeStakeState(data: Uint8Array): StakeState {
  if (data.length !== 200) throw new Error(`stake account data is ${data.length} bytes, expected 200`);
  const b = Buffer.from(data.buffer, data.byteOffset, data.byteLength);
  const kind = KINDS[b.readUInt32LE(0)];
  if (!kind) throw new Error(`unknown stake state tag ${b.readUInt32LE(0)}`);
  const pk = (o: number) => base58.encode(data.subarray(o, o + 32));
  const meta = kind === "initialized" || kind === "delegated";
  const deact = b.readBigUInt64LE(172);
  return {
    kind,
    staker: meta ? pk(12) : null,
    withdrawer: meta ? pk(44) : null,
    lockup: meta
      ? { unixTimestamp: b.readBigInt64LE(76), epoch: b.readBigUInt64LE(84), custodian: pk(92) }
      : null,
    delegation:
      kind === "delegated"
        ? {
            voter: pk(124),
            stake: b.readBigUInt64LE(156),
            activationEpoch: b.readBigUInt64LE(164),
            deactivationEpoch: deact === U64_MAX ? null : deact,
            creditsObserved: b.readBigUInt64LE(188),
          }
        : null,
  };
}

export type StakeStatus = "inactive" | "activating" | "active" | "deactivating";

/**
 * Status from the epoch fields (the getStakeActivation RPC is gone): activating/deactivating are the
 * one-epoch transitions; an account deactivated in its activation epoch is inactive at once.
 */
export function stakeStatus(state: StakeState, currentEpoch: bigint): StakeStatus {
  const d = state.delegation;
  if (!d) return "inactive";
  const act = d.activationEpoch;
  const deact = d.deactivationEpoch;
  if (act > currentEpoch) return "inactive";
  if (act === currentEpoch) return deact === act ? "inactive" : "activating";
  if (deact === null || deact > currentEpoch) return "active";
  if (deact === currentEpoch) return "deactivating";
  return "inactive";
}
