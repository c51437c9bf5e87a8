import { base58 } from "@scure/base";

/**
 * The node's own reading of a stake account: the fields of `StakeStateV2::Stake` it needs to pay rewards,
 * located by walking the Rust declaration (solana-program `stake/state.rs`, bincode: little-endian, no
 * padding) rather than by copied offsets. The node never imports the stake-account area's decoder: it is the
 * reference that area is checked against.
 */
const FIELDS = [
  ["tag", 4], // enum StakeStateV2 discriminant: 2 = Stake
  ["rentExemptReserve", 8], // Meta
  ["staker", 32], // Meta.authorized
  ["withdrawer", 32],
  ["lockupUnixTimestamp", 8], // Meta.lockup
  ["lockupEpoch", 8],
  ["lockupCustodian", 32],
  ["voter", 32], // Stake.delegation
  ["stake", 8],
  ["activationEpoch", 8],
  ["deactivationEpoch", 8],
  ["warmupCooldownRate", 8], // f64, deprecated
  ["creditsObserved", 8], // Stake
  ["flags", 1], // StakeFlags
] as const;

type Field = (typeof FIELDS)[number][0];

const OFFSET = Object.fromEntries(
  FIELDS.map(([name], i) => [name, FIELDS.slice(0, i).reduce((sum, [, size]) => sum + size, 0)]),
) as Record<Field, number>;

const STAKE_TAG = 2;
const NOT_DEACTIVATED = 0xffff_ffff_ffff_ffffn;

export interface Delegated {
  staker: string;
  withdrawer: string;
  voter: string;
  stake: bigint;
  activationEpoch: bigint;
  /** null while not deactivated. */
  deactivationEpoch: bigint | null;
}

/** The delegation of a `Stake` account; null for any other state. */
export function readDelegation(data: Uint8Array): Delegated | null {
  const view = new DataView(data.buffer, data.byteOffset, data.byteLength);
  if (data.byteLength < OFFSET.flags || view.getUint32(OFFSET.tag, true) !== STAKE_TAG) return null;
  const key = (f: Field) => base58.encode(data.subarray(OFFSET[f], OFFSET[f] + 32));
  const u64 = (f: Field) => view.getBigUint64(OFFSET[f], true);
  const deactivation = u64("deactivationEpoch");
  return {
    staker: key("staker"),
    withdrawer: key("withdrawer"),
    voter: key("voter"),
    stake: u64("stake"),
    activationEpoch: u64("activationEpoch"),
    deactivationEpoch: deactivation === NOT_DEACTIVATED ? null : deactivation,
  };
}

/** A copy of the account data with the delegation's stake replaced (rewards compound into it). */
export function withStake(data: Uint8Array, stake: bigint): Uint8Array {
  const out = Uint8Array.from(data);
  new DataView(out.buffer).setBigUint64(OFFSET.stake, stake, true);
  return out;
}
