/**
 * Builds the gateway deployable: one ES module bundle (`gateway/dist/main.js`) plus the Lua scripts it
 * loads, run with plain `node`. The gateway is the one process on the request path, and running it
 * without the tsx loader saves its loader thread (about 60 MB of RSS) and per-call name-keeping shims.
 * Tests run the sources through tsx; `npm start` and `npm run bench:gateway` run this build.
 */
import { cpSync, mkdirSync, rmSync } from "node:fs";
import { pathToFileURL } from "node:url";
import { build } from "esbuild";

/**
 * V8 flags the gateway runs with. The old generation is capped far above its live set (about 30 MB at a
 * thousand open connections, from a heap snapshot): without a cap V8 lets garbage promoted by requests
 * in flight pile up to ~110 MB before collecting; with it, peak RSS at 1000 connections went from about
 * 200 MB to 140 MB at no measurable throughput cost. Raise it for far larger connection counts.
 * The young generation's semi-spaces may grow to 32 MB (V8's own cap here is 16): every request leaves a
 * few dozen KB of short-lived objects, and with a hundred requests in flight a smaller nursery is
 * scavenged so often that much of it is still live, copied and promoted. Measured side by side at c100
 * (docs/benchmarks.md): garbage collection 18.7 → 13.8 µs a request, for about 30 MB more
 * peak RSS at 1000 connections (145 → 167–176 MB; the target is ≤ 192). `gateway/package.json`'s start
 * script repeats both flags.
 */
export const GATEWAY_NODE_FLAGS = ["--max-old-space-size=256", "--max-semi-space-size=32"];

const root = new URL("../", import.meta.url);
const defaultDist = new URL("gateway/dist/", root);

/**
 * Writes `gateway/dist/` afresh; returns the entry's path relative to the repository root. `out`, an
 * absolute folder, builds there instead and returns its entry's absolute path: a bench's own build, so
 * benches run side by side never remove the bundle another one is starting from.
 */
export async function buildGateway(out?: string): Promise<string> {
  const dist = out ? pathToFileURL(`${out}/`) : defaultDist;
  rmSync(dist, { recursive: true, force: true });
  mkdirSync(dist, { recursive: true });
  await build({
    entryPoints: [new URL("gateway/src/main.ts", root).pathname],
    outfile: new URL("main.js", dist).pathname,
    bundle: true,
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: true,
    logLevel: "warning",
    // CommonJS dependencies (ioredis, pino) call require(); an ES module bundle has to provide one.
    banner: {
      js: "import { createRequire as __createRequire } from 'node:module'; const require = __createRequire(import.meta.url);",
    },
  });
  // db/src/redis/lua.ts reads `./lua/<name>.lua` next to the module that holds it: in the bundle, main.js.
  cpSync(new URL("db/src/redis/lua/", root), new URL("lua/", dist), { recursive: true });
  return out ? new URL("main.js", dist).pathname : "gateway/dist/main.js";
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await buildGateway();
