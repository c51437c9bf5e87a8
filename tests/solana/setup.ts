import assert from "node:assert/strict";
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

/** Sends a signed transaction to the node as a wallet does (JSON-RPC `sendTransaction`). */
export async function sendSigned(url: string, b64: string): Promise<void> {
  const res = await fetch(url, {
    method: "POST",
    headers: { "content-type": "application/json" },
    body: JSON.stringify({
      jsonrpc: "2.0",
      id: 1,
      method: "sendTransaction",
      params: [b64, { encoding: "base64" }],
    }),
  });
  const body = (await res.json()) as { result?: string; error?: { message: string } };
  assert.ok(body.result, body.error?.message);
}
