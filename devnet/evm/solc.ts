import { createHash } from "node:crypto";
import { mkdirSync, readFileSync, renameSync, writeFileSync } from "node:fs";
import { createRequire } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import type { Hex } from "viem";

// The compiler (9 MB of JavaScript, 0.3 s of CPU to load) only on a cache miss: every devnet and test
// process compiles its contracts, almost always from the cache.
const require = createRequire(import.meta.url);
const SOLC_VERSION: string = require("solc/package.json").version;

/** A contract compiled by solc-js: its ABI and creation bytecode. */
export interface Compiled {
  abi: unknown[];
  bytecode: Hex;
}

/**
 * Compiles Solidity sources with solc-js (the npm `solc` package: the compiler is inside it, no download)
 * and returns the named contracts. `files` are paths (URLs) of the sources; each is known to the compiler
 * by its file name, so sources import one another as `./Name.sol`. The output is kept on disk under the
 * hash of the compiler version, the settings and the sources (solc-js takes seconds; every test process and
 * devnet would pay it again), so a changed source is always recompiled.
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
  const text = JSON.stringify(input);
  const key = createHash("sha256").update(SOLC_VERSION).update(text).digest("hex");
  const dir = path.join(tmpdir(), "stake-solc-cache");
  const cached = path.join(dir, `${key}.json`);
  let output: string;
  try {
    output = readFileSync(cached, "utf8");
  } catch {
    const solc: typeof import("solc") = require("solc");
    output = solc.compile(text);
    mkdirSync(dir, { recursive: true });
    // Written aside and renamed, so a process reading the cache never sees half a file.
    const partial = `${cached}.${process.pid}`;
    writeFileSync(partial, output);
    renameSync(partial, cached);
  }
  const out = JSON.parse(output) as {
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
