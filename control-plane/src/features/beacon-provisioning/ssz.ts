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

/** compute_domain(domain_type, fork_version, genesis_validators_root). */
export function computeDomain(
  domainType: Uint8Array,
  forkVersion: Uint8Array,
  genesisValidatorsRoot: Uint8Array = ZERO32,
): Uint8Array {
  expectLength("domain_type", domainType, 4);
  const out = new Uint8Array(32);
  out.set(domainType);
  out.set(forkDataRoot(forkVersion, genesisValidatorsRoot).subarray(0, 28), 4);
  return out;
}

/**
 * compute_domain(DOMAIN_DEPOSIT, GENESIS_FORK_VERSION, 0^32). Deposits always use the genesis fork version
 * and a zero validators root, so a deposit signed today stays valid across forks (phase0 and Electra).
 */
export function computeDepositDomain(genesisForkVersion: Uint8Array): Uint8Array {
  return computeDomain(DOMAIN_DEPOSIT, genesisForkVersion);
}

export const DOMAIN_VOLUNTARY_EXIT = Uint8Array.from([4, 0, 0, 0]);

/**
 * compute_domain(DOMAIN_VOLUNTARY_EXIT, CAPELLA_FORK_VERSION, genesis_validators_root): since Deneb
 * (EIP-7044) every voluntary exit is verified with the Capella fork version, so a signed exit stays valid
 * for ever, which is what lets one be handed out in advance.
 */
export function computeVoluntaryExitDomain(
  capellaForkVersion: Uint8Array,
  genesisValidatorsRoot: Uint8Array,
): Uint8Array {
  expectLength("genesis_validators_root", genesisValidatorsRoot, 32);
  return computeDomain(DOMAIN_VOLUNTARY_EXIT, capellaForkVersion, genesisValidatorsRoot);
}

/** hash_tree_root(VoluntaryExit{epoch: uint64, validator_index: uint64}). */
export function voluntaryExitRoot(epoch: bigint, validatorIndex: bigint): Uint8Array {
  return hash(uint64Root(epoch), uint64Root(validatorIndex));
}

/** SigningData{object_root, domain} root: the 32 bytes that are BLS-signed. */
export function computeSigningRoot(objectRoot: Uint8Array, domain: Uint8Array): Uint8Array {
  return hash(objectRoot, domain);
}
