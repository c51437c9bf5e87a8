import type { SecretKey } from "@chainsafe/lodestar-z/blst";
import { type PubkeyCache, pubkeyCache } from "@chainsafe/lodestar-z/pubkeys";
import { interopSecretKey } from "@lodestar/state-transition";

/**
 * The devnet validators' keys: the interop keys every client's test networks use (validator `i`'s secret is
 * sha256(i) mod the curve order), so anyone can recompute them.
 */
export function devnetSecretKeys(count: number): SecretKey[] {
  return Array.from({ length: count }, (_, i) => interopSecretKey(i));
}

/**
 * Lodestar's pubkey cache, emptied for a new chain. Its signature verifier resolves validator indices in this
 * native, process-wide cache, so a process runs one consensus devnet at a time.
 */
export function freshPubkeyCache(): PubkeyCache {
  pubkeyCache.reset();
  return pubkeyCache;
}
