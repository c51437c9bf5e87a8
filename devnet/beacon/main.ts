import { startBeaconDevnet } from "./server.ts";

/**
 * Simulated beacon chain for `npm start`: PORT (default 5052, the usual beacon REST port), ETH_NETWORK,
 * EXECUTION_PORT (default 8545, where the indexer's ETH_EXECUTION_URL points by default). A slot every
 * 2 s, 8 slots an epoch, 8 background validators proposing beside the demo's.
 *
 * BEACON_CHAIN=lodestar runs the chain made by Lodestar's state transition instead (consensus/, 64
 * validators, 4 of them offline; docs/beacon-data.md, "The consensus chain"). It is loaded only then, after
 * its preset is set: Lodestar fixes the preset when its first module loads, and in `npm start`'s bundles a
 * package's chunk is evaluated before the code of the module that imports it.
 */
const lodestar = async () => {
  process.env.LODESTAR_PRESET ??= "minimal";
  return import("./consensus/server.ts");
};
const network = process.env.ETH_NETWORK === "mainnet" ? "mainnet" : "hoodi";
const common = {
  port: Number(process.env.PORT ?? 5052),
  network,
  execution: true,
  executionPort: Number(process.env.EXECUTION_PORT ?? 8545),
  secondsPerSlot: Number(process.env.SECONDS_PER_SLOT ?? 2),
  // Slots on the clock; SLOT_MS=0: only on POST /devnet/advance (the benchmark drives them).
  realTime: process.env.SLOT_MS !== "0",
} as const;
const devnet =
  process.env.BEACON_CHAIN === "lodestar"
    ? await (await lodestar()).startConsensusDevnet({
        ...common,
        validators: Number(process.env.VALIDATORS ?? 64),
        offline: [60, 61, 62, 63],
      })
    : await startBeaconDevnet({
        ...common,
        slotsPerEpoch: Number(process.env.SLOTS_PER_EPOCH ?? 8),
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
