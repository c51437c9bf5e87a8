/**
 * The beacon devnet for `npm start`: a chain made by Lodestar's state transition (consensus/, docs/beacon-data.md,
 * "The consensus chain"), 64 interop validators of which the last 4 are offline, a slot every 2 s, anvil as
 * its execution layer. PORT (default 5052, the usual beacon REST port), ETH_NETWORK, EXECUTION_PORT (default
 * 8545, where the indexer's ETH_EXECUTION_URL points by default), VALIDATORS, SECONDS_PER_SLOT, SLOT_MS=0
 * (slots only on POST /devnet/advance: the benchmark drives them).
 *
 * Lodestar fixes its preset when its first module loads, and in `npm start`'s bundles a package's chunk is
 * evaluated before the code of the module that imports it: the preset is set here, then the devnet is
 * imported dynamically.
 */
process.env.LODESTAR_PRESET ??= "minimal";
const { startConsensusDevnet } = await import("./consensus/server.ts");

const validators = Number(process.env.VALIDATORS ?? 64);
const devnet = await startConsensusDevnet({
  port: Number(process.env.PORT ?? 5052),
  network: process.env.ETH_NETWORK === "mainnet" ? "mainnet" : "hoodi",
  execution: true,
  executionPort: Number(process.env.EXECUTION_PORT ?? 8545),
  secondsPerSlot: Number(process.env.SECONDS_PER_SLOT ?? 2),
  realTime: process.env.SLOT_MS !== "0",
  validators,
  // Offline by design: their missed duties show as penalties in the rewards breakdown.
  offline: [4, 3, 2, 1].map((k) => validators - k).filter((i) => i >= 0),
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
