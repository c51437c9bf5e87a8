import { startHyperliquidDevnet } from "./server.ts";

// Runnable simulated Hyperliquid node for `npm start`: PORT (default 3001), HYPERLIQUID_CHAIN or NETWORK
// picks Mainnet/Testnet. stdout carries exactly one line, `READY <url>`; demo wallets go to stderr.
const chainEnv = process.env.HYPERLIQUID_CHAIN ?? process.env.NETWORK ?? "testnet";
const chain = chainEnv.toLowerCase() === "mainnet" ? "Mainnet" : "Testnet";
const devnet = await startHyperliquidDevnet({ port: Number(process.env.PORT ?? 3001), chain });
for (const w of devnet.wallets) {
  process.stderr.write(
    `hyperliquid devnet (${chain}) demo wallet ${w.address} key ${w.privateKey} (throwaway)\n`,
  );
}
process.stdout.write(`READY ${devnet.url}\n`);
const stop = () => {
  devnet.close().then(() => process.exit(0));
};
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
