import { createHash } from "node:crypto";

/** SSZ merkleization of the few containers a deposit needs, hand-written (SHA-256, 32-byte chunks). */
const ZERO32 = new Uint8Array(32);

export function hash(a: Uint8Array, b: Uint8Array): Uint8Array {
  return new Uint8Array(createHash("sha256").update(a).update(b).digest());
}

function chunk(bytes: Uint8Array, from: number, to: number): Uint8Array {
  const out = new Uint8Array(32);
  out.set(bytes.subarray(from, to));
  return out;
}

function expectLength(name: string, bytes: Uint8Array, n: number): void {
  if (bytes.length !== n) throw new Error(`${name} must be ${n} bytes, got ${bytes.length}`);
}

/** uint64 little-endian, zero-padded to one chunk. Amounts are Gwei and must fit in uint64. */
function uint64Root(value: bigint): Uint8Array {
  if (value < 0n || value >= 1n << 64n) throw new Error("uint64 out of range");
  const out = new Uint8Array(32);
  new DataView(out.buffer).setBigUint64(0, value, true);
  return out;
}

/** Bytes48 root: two chunks, the second zero-padded. */
export function pubkeyRoot(pubkey: Uint8Array): Uint8Array {
  expectLength("pubkey", pubkey, 48);
  return hash(chunk(pubkey, 0, 32), chunk(pubkey, 32, 48));
}

/** Bytes96 root: three chunks padded to four. */
export function signatureRoot(sig: Uint8Array): Uint8Array {
  expectLength("signature", sig, 96);
  return hash(hash(sig.subarray(0, 32), sig.subarray(32, 64)), hash(sig.subarray(64, 96), ZERO32));
}

export interface DepositMessage {
  pubkey: Uint8Array;
  withdrawalCredentials: Uint8Array;
  /** Gwei. */
  amount: bigint;
}

/** hash_tree_root(DepositMessage): three fields padded to four leaves. */
export function depositMessageRoot(m: DepositMessage): Uint8Array {
  expectLength("withdrawal_credentials", m.withdrawalCredentials, 32);
  return hash(hash(pubkeyRoot(m.pubkey), m.withdrawalCredentials), hash(uint64Root(m.amount), ZERO32));
}

/**
 * hash_tree_root(DepositData): the value the deposit contract recomputes on chain and compares with
 * `deposit_data_root`; a mismatch reverts the deposit.
 */
export function depositDataRoot(m: DepositMessage & { signature: Uint8Array }): Uint8Array {
  expectLength("withdrawal_credentials", m.withdrawalCredentials, 32);
  return hash(
    hash(pubkeyRoot(m.pubkey), m.withdrawalCredentials),
    hash(uint64Root(m.amount), signatureRoot(m.signature)),
  );
}

export const DOMAIN_DEPOSIT = Uint8Array.from([3, 0, 0, 0]);

/** ForkData{current_version, genesis_validators_root} root. */
export function forkDataRoot(
  forkVersion: Uint8Array,
  genesisValidatorsRoot: Uint8Array = ZERO32,
): Uint8Array {
  expectLength("fork_version", forkVersion, 4);
  return hash(chunk(forkVersion, 0, 4), genesisValidatorsRoot);
}

/**
 * compute_domain(DOMAIN_DEPOSIT, GENESIS_FORK_VERSION, 0^32). Deposits always use the genesis fork version
 * and a zero validators root, so a deposit signed today stays valid across forks (phase0 and Electra).
 */
export function computeDepositDomain(genesisForkVersion: Uint8Array): Uint8Array {
  const out = new Uint8Array(32);
  out.set(DOMAIN_DEPOSIT);
  out.set(forkDataRoot(genesisForkVersion).subarray(0, 28), 4);
  return out;
}

/** SigningData{object_root, domain} root: the 32 bytes that are BLS-signed. */
export function computeSigningRoot(objectRoot: Uint8Array, domain: Uint8Array): Uint8Array {
  return hash(objectRoot, domain);
}
