import { base58Encode } from "./codec.ts";

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

/** Decodes a legacy wire transaction (the inverse of builder.ts); throws on v0 messages or truncation. */
export function decodeLegacyTransaction(wire: Uint8Array): DecodedTransaction {
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
  const signatures = Array.from({ length: nSigs }, () => base58Encode(take(64)));
  if ((wire[o] ?? 0) & 0x80) throw new Error("versioned messages are not supported");
  take(3);
  const nKeys = cu16();
  const accountKeys = Array.from({ length: nKeys }, () => base58Encode(take(32)));
  const recentBlockhash = base58Encode(take(32));
  const key = (i: number) => {
    const k = accountKeys[i];
    if (k === undefined) throw new Error("account index out of range");
    return k;
  };
  const instructions = Array.from({ length: cu16() }, () => {
    const programId = key(take(1)[0] as number);
    const accounts = Array.from(take(cu16()), (i) => key(i));
    const data = Uint8Array.from(take(cu16()));
    return { programId, accounts, data };
  });
  return { signatures, accountKeys, recentBlockhash, instructions };
}
