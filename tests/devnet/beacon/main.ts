import { startBeaconDevnet } from "./server.ts";

// Simulated beacon node for `npm start`: PORT (default 5052, the usual beacon REST port), ETH_NETWORK.
const network = process.env.ETH_NETWORK === "mainnet" ? "mainnet" : "hoodi";
const devnet = await startBeaconDevnet({ port: Number(process.env.PORT ?? 5052), network });
process.stdout.write(`READY ${devnet.url}\n`);
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, async () => {
    await devnet.close();
    process.exit(0);
  });
}
