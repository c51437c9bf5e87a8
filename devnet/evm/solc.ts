import { readFileSync } from "node:fs";
import solc from "solc";
import type { Hex } from "viem";

/** A contract compiled by solc-js: its ABI and creation bytecode. */
export interface Compiled {
  abi: unknown[];
  bytecode: Hex;
}

/**
 * Compiles Solidity sources with solc-js (the npm `solc` package: the compiler is inside it, no download)
 * and returns the named contracts. `files` are paths (URLs) of the sources; each is known to the compiler
 * by its file name, so sources import one another as `./Name.sol`.
 */
export function compileSolidity<N extends string>(
  files: URL[],
  contracts: Record<N, string>,
  settings: { optimizerRuns?: number; evmVersion?: string } = {},
): Record<N, Compiled> {
  const sources = Object.fromEntries(
    files.map((f) => [f.pathname.split("/").pop() as string, { content: readFileSync(f, "utf8") }]),
  );
  const input = {
    language: "Solidity",
    sources,
    settings: {
      optimizer: { enabled: true, runs: settings.optimizerRuns ?? 200 },
      evmVersion: settings.evmVersion ?? "cancun",
      outputSelection: { "*": { "*": ["abi", "evm.bytecode.object"] } },
    },
  };
  const out = JSON.parse(solc.compile(JSON.stringify(input))) as {
    errors?: { severity: string; formattedMessage: string }[];
    contracts?: Record<string, Record<string, { abi: unknown[]; evm: { bytecode: { object: string } } }>>;
  };
  const errors = (out.errors ?? []).filter((e) => e.severity === "error");
  if (errors.length) throw new Error(errors.map((e) => e.formattedMessage).join("\n"));
  const result = {} as Record<N, Compiled>;
  for (const [name, file] of Object.entries(contracts) as [N, string][]) {
    const c = out.contracts?.[file]?.[name];
    if (!c) throw new Error(`${name} missing from the compiler output`);
    result[name] = { abi: c.abi, bytecode: `0x${c.evm.bytecode.object}` };
  }
  return result;
}
