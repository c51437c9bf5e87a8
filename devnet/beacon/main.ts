import { startBeaconDevnet } from "./server.ts";

/**
 * Simulated beacon chain for `npm start`: PORT (default 5052, the usual beacon REST port), ETH_NETWORK,
 * EXECUTION_PORT (default 8545, where the indexer's ETH_EXECUTION_URL points by default). A slot every
 * 2 s, 8 slots an epoch, 8 background validators proposing beside the demo's.
 */
const network = process.env.ETH_NETWORK === "mainnet" ? "mainnet" : "hoodi";
const devnet = await startBeaconDevnet({
  port: Number(process.env.PORT ?? 5052),
  network,
  execution: true,
  executionPort: Number(process.env.EXECUTION_PORT ?? 8545),
  slotsPerEpoch: Number(process.env.SLOTS_PER_EPOCH ?? 8),
  secondsPerSlot: Number(process.env.SECONDS_PER_SLOT ?? 2),
  // Slots on the clock; SLOT_MS=0: only on POST /devnet/advance (the benchmark drives them).
  realTime: process.env.SLOT_MS !== "0",
  backgroundValidators: Number(process.env.BACKGROUND_VALIDATORS ?? 8),
});
process.stdout.write(`READY ${devnet.url}\n`);
process.stderr.write(
  `beacon devnet: execution node (anvil) ${devnet.execution?.url}, batch depositor ${devnet.execution?.batchDepositor}\n`,
);
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, async () => {
    await devnet.close();
    process.exit(0);
  });
}
