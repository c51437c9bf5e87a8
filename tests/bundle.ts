import path from "node:path";
import { bundleEntries, bundleOf } from "../scripts/lib/bundle.mjs";
import { ROOT } from "../scripts/lib/infra.ts";

/**
 * The test files of a run and the entry points they spawn, compiled ahead into .data/test-bundle
 * (scripts/lib/bundle.mjs): one esbuild call, then each file and each process a test starts loads on plain
 * `node` in a few reads instead of through tsx's hooks.
 */
const OUT = path.join(ROOT, ".data", "test-bundle");
/**
 * What the tests spawn (scripts/lib/processes.ts's `entryCommand` runs their bundles under
 * STAKE_BUNDLE_DIR): the deployables as the fault stacks and config tests start them, the operator CLI
 * (dozens of times), `npm start`'s script, the benches' helpers (their smoke runs start dozens) and the
 * tests' own helper processes.
 */
const ENTRIES = [
  "control-plane/src/main.ts",
  "control-plane/src/worker.ts",
  "gateway/src/main.ts",
  "scripts/bench/bare-proxy.ts",
  "scripts/bench/floor-proxy.ts",
  "scripts/bench/gateway.ts",
  "scripts/bench/load.ts",
  "scripts/bench/upstream.ts",
  "scripts/operator/main.ts",
  "scripts/up.ts",
  "tests/faults/pausing-worker.ts",
  "tests/webhooks/delivery-worker.ts",
];

/**
 * Builds every file and ENTRIES afresh; returns the directory (for STAKE_BUNDLE_DIR) and each file
 * (relative to the root) with the bundle that runs it.
 */
export async function bundleTests(files: string[]): Promise<{ dir: string; bundles: Map<string, string> }> {
  await bundleEntries([...files, ...ENTRIES], OUT);
  return { dir: OUT, bundles: new Map(files.map((f) => [f, bundleOf(OUT, f)])) };
}
