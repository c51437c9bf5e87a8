import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";

/** A test wallet from a fixed seed; signs the one signature slot of an unsigned transaction. */
export function testWallet(seedByte: number) {
  const secret = new Uint8Array(32).fill(seedByte);
  return {
    pubkey: base58.encode(ed25519.getPublicKey(secret)),
    sign(unsignedBase64: string): string {
      const tx = Buffer.from(unsignedBase64, "base64");
      if (tx[0] !== 1) throw new Error("expected exactly one signature slot");
      tx.set(ed25519.sign(tx.subarray(65), secret), 1);
      return tx.toString("base64");
    },
  };
}
