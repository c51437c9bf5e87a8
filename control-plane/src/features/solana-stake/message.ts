import { base58 } from "@scure/base";
import type { RpcTransaction } from "./client.ts";

export interface DecodedInstruction {
  programId: string;
  accounts: string[];
  data: Uint8Array;
}
export interface DecodedTransaction {
  signatures: string[];
  accountKeys: string[];
  recentBlockhash: string;
  instructions: DecodedInstruction[];
}

/** The accounts a v0 message loads from address lookup tables, as `getTransaction` resolves them in `meta`. */
export interface LoadedAddresses {
  writable: string[];
  readonly: string[];
}

/**
 * Decodes a wire transaction, legacy or v0 (the inverse of builder.ts for legacy ones). A v0 message
 * indexes accounts past its static keys into the lookup-table addresses, which the node resolves for us
 * (`meta.loadedAddresses`: writable ones first, then read-only, as the runtime orders them). Throws on
 * truncation, on another version, or on a v0 message whose loaded addresses are not given.
 */
export function decodeTransaction(wire: Uint8Array, loaded?: LoadedAddresses | null): DecodedTransaction {
  let o = 0;
  const need = (n: number) => {
    if (o + n > wire.length) throw new Error("truncated transaction");
  };
  const cu16 = () => {
    let v = 0;
    for (let shift = 0; shift < 21; shift += 7) {
      need(1);
      const b = wire[o++] as number;
      v |= (b & 0x7f) << shift;
      if (!(b & 0x80)) return v;
    }
    throw new Error("bad compact-u16");
  };
  const take = (n: number) => {
    need(n);
    const s = wire.subarray(o, o + n);
    o += n;
    return s;
  };
  const nSigs = cu16();
  const signatures = Array.from({ length: nSigs }, () => base58.encode(take(64)));
  need(1);
  const versioned = ((wire[o] as number) & 0x80) !== 0;
  if (versioned) {
    const version = (wire[o] as number) & 0x7f;
    if (version !== 0) throw new Error(`unsupported message version ${version}`);
    o++;
  }
  take(3);
  const nKeys = cu16();
  const staticKeys = Array.from({ length: nKeys }, () => base58.encode(take(32)));
  const recentBlockhash = base58.encode(take(32));
  const raw = Array.from({ length: cu16() }, () => ({
    programIndex: take(1)[0] as number,
    accountIndexes: Array.from(take(cu16())),
    data: Uint8Array.from(take(cu16())),
  }));
  let lookedUp = 0;
  if (versioned) {
    for (let n = cu16(); n > 0; n--) {
      take(32);
      lookedUp += take(cu16()).length;
      lookedUp += take(cu16()).length;
    }
    if (lookedUp > 0 && !loaded) throw new Error("v0 message without its loaded addresses");
  }
  const accountKeys = [...staticKeys, ...(loaded?.writable ?? []), ...(loaded?.readonly ?? [])];
  if (accountKeys.length !== nKeys + lookedUp) throw new Error("loaded addresses do not match the lookups");
  const key = (i: number) => {
    const k = accountKeys[i];
    if (k === undefined) throw new Error("account index out of range");
    return k;
  };
  const instructions = raw.map((ix) => ({
    programId: key(ix.programIndex),
    accounts: ix.accountIndexes.map(key),
    data: ix.data,
  }));
  return { signatures, accountKeys, recentBlockhash, instructions };
}

/** `getTransaction` with `encoding: "base64"` and `maxSupportedTransactionVersion: 0` (its schema: client.ts). */
export type { RpcTransaction } from "./client.ts";

/**
 * The decoded transaction, or null when it cannot be read (a future message version, a node that left out
 * the loaded addresses): one unreadable transaction in an account's history must not make the account's
 * balance, rewards and history fail for good, so it is skipped.
 */
export function decodeOrSkip(tx: RpcTransaction): DecodedTransaction | null {
  try {
    return decodeTransaction(Buffer.from(tx.transaction[0], "base64"), tx.meta?.loadedAddresses);
  } catch {
    return null;
  }
}
