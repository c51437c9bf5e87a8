import * as blst from "@chainsafe/blst";
import { secretKeyToBytes } from "./eip2333.ts";

/**
 * Ethereum BLS (min-pk, proof-of-possession ciphersuite BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_) through
 * @chainsafe/blst's prebuilt native binding: ~0.4 ms per signature here versus ~40 ms for pure JS, which is
 * what makes a 100-validator provision fit in well under a second. Tests verify with @noble/curves.
 */
export interface BlsKey {
  publicKey: Uint8Array;
  sign(message: Uint8Array): Uint8Array;
}

export function blsKeyFromSecret(sk: bigint): BlsKey {
  const key = blst.SecretKey.fromBytes(secretKeyToBytes(sk));
  return {
    publicKey: key.toPublicKey().toBytes(true),
    sign: (message) => key.sign(message).toBytes(true),
  };
}

/** Verifies with full subgroup/infinity checks on the deserialised points. */
export function blsVerify(message: Uint8Array, publicKey: Uint8Array, signature: Uint8Array): boolean {
  try {
    const pk = blst.PublicKey.fromBytes(publicKey, true);
    const sig = blst.Signature.fromBytes(signature, true);
    return blst.verify(message, pk, sig);
  } catch {
    return false;
  }
}
