import { ed25519 } from "@noble/curves/ed25519.js";
import { base58 } from "@scure/base";
import { startSolanaDevnet } from "./server.ts";

/**
 * Runnable simulated Solana node for `npm start`: PORT (default 8899), the PubSub websocket also on PORT + 1
 * (where `@solana/web3.js` looks, as on a real validator). EPOCH_MS (default 30000; 0: never) closes an epoch
 * on a timer, paying its rewards; an epoch is EPOCH_MS / 400 slots, so block times follow the wall clock.
 * Demo wallets are the ed25519 keys of seeds 32×0x01..0x03 (the test wallet of docs/chains/solana.md §2
 * first), each funded with 1,000 SOL.
 */
const port = Number(process.env.PORT ?? 8899);
const epochMs = Number(process.env.EPOCH_MS ?? 30_000);
if (!Number.isInteger(epochMs) || epochMs < 0 || (epochMs > 0 && epochMs < 400)) {
  process.stderr.write(
    `EPOCH_MS must be 0 (no timer) or a whole number of milliseconds ≥ 400, got ${process.env.EPOCH_MS}\n`,
  );
  process.exit(2);
}
const fund = [1, 2, 3].map((b) => ({
  pubkey: base58.encode(ed25519.getPublicKey(new Uint8Array(32).fill(b))),
  lamports: 1_000_000_000_000n,
}));
const devnet = await startSolanaDevnet({
  port,
  ...(port > 0 ? { wsPort: port + 1 } : {}),
  fund,
  epochMs,
  ...(epochMs > 0 ? { slotsPerEpoch: BigInt(Math.floor(epochMs / 400)) } : {}),
});
process.stdout.write(`READY ${devnet.url}\n`);
const stop = () => void devnet.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
