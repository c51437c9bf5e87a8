import { createRequire } from "node:module";
import { spawnOwned } from "../../scripts/lib/owned.ts";

/** anvil's binary from the `@foundry-rs/anvil` platform package (installed by npm, runs offline). */
export function anvilBinary(): string {
  const require = createRequire(import.meta.url);
  const arch = process.arch === "arm64" ? "arm64" : "amd64";
  const pkg = `@foundry-rs/anvil-${process.platform}-${arch}`;
  const main = require.resolve("@foundry-rs/anvil/package.json");
  const fromAnvil = createRequire(main);
  return fromAnvil.resolve(`${pkg}/bin/anvil`);
}

/** anvil's default dev accounts (mnemonic "test … junk"), unlocked for eth_sendTransaction. */
export const ANVIL_ACCOUNTS = [
  "0xf39fd6e51aad88f6f4ce6ab8827279cfffb92266",
  "0x70997970c51812dc3a010c7d01b50e0d17dc79c8",
  "0x3c44cdddb6a900fa2b585dd299e03d12fa4293bc",
  "0x90f79bf6eb2c4f870365e785982e1f101e93b906",
  "0x15d34aaf54267db7d7c367839aaf71a00a2c6a65",
  "0x9965507d1a55bcc2695c58ba16fb37d819b0a4dc",
  "0x976ea74026e726554db657fa54763abd0c3a0aa9",
  "0x14dc79964da2c08b23698b3d3cc7ca32193d9955",
  "0x23618e81e3f5cdf7f54c3d65f7fbc0abf5b21e8f",
  "0xa0ee7a142d267c1f36714e4a8f75612f20a79720",
] as const;

export interface Anvil {
  url: string;
  pid: number;
  close(): Promise<void>;
}

/**
 * Starts anvil on loopback with the given extra flags (`--port 0` picks a free port) and waits until it
 * listens. The process dies with the one that started it, however that ends (a setup that throws, a
 * cancelled test, a SIGKILLed benchmark: scripts/lib/owned.ts).
 */
export async function startAnvil(args: string[], port = 0): Promise<Anvil> {
  const child = spawnOwned(anvilBinary(), ["--port", String(port), "--host", "127.0.0.1", ...args], {
    stdio: ["ignore", "pipe", "inherit"],
  });
  const url = await new Promise<string>((resolve, reject) => {
    let seen = "";
    child.once("exit", (code) => reject(new Error(`anvil exited with ${code}`)));
    child.stdout?.on("data", (chunk: Buffer) => {
      seen += chunk.toString();
      const m = /Listening on ([\d.]+:\d+)/.exec(seen);
      if (m) resolve(`http://${m[1]}`);
    });
  });
  child.stdout?.resume();
  return {
    url,
    pid: child.pid as number,
    close: () =>
      new Promise<void>((resolve) => {
        if (child.exitCode !== null || child.signalCode !== null) return resolve();
        child.once("exit", () => resolve());
        child.kill("SIGTERM");
      }),
  };
}
