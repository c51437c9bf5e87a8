import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { startSolanaDevnet } from "./server.ts";

/**
 * Runnable simulated Solana node for `npm start`: PORT (default 8899). Demo wallets are the ed25519 keys of
 * seeds 32×0x01..0x03 (the test wallet of docs/chains/solana.md §2 first), each funded with 1,000 SOL.
 */
const port = Number(process.env.PORT ?? 8899);
const fund = [1, 2, 3].map((b) => ({
  pubkey: base58.encode(ed25519.getPublicKey(new Uint8Array(32).fill(b))),
  lamports: 1_000_000_000_000n,
}));
const devnet = await startSolanaDevnet({ port, fund });
process.stdout.write(`READY ${devnet.url}\n`);
const stop = () => void devnet.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
