import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin } from "esbuild";
import { ROOT } from "../scripts/lib/infra.ts";
import { bundleOf } from "./helpers/entry.ts";

/**
 * The test files of a run, compiled ahead into ES module bundles under .data/test-bundle that plain `node`
 * runs (with source maps, so a failure points at the .ts line). Through tsx, three quarters of a typical
 * file's CPU went on loading it: each of the hundreds of modules it imports resolved and transformed
 * through the loader's hooks, in every one of ~130 processes (a profile of the control plane's smoke test:
 * 9.7 of 13 CPU-seconds in module loading and tsx). One esbuild call for every file, with the modules they
 * share split into chunks, takes about 1.5 s; each file then loads in a few reads.
 *
 * Our sources (workspace packages included) are bundled; packages from node_modules stay external, imported
 * by the absolute path esbuild resolves them to from the importing file (so a package of any workspace
 * member is found, though the bundle lives elsewhere). `import.meta.url`, `.dirname` and `.filename` keep
 * naming the source file, as code that finds files beside itself (Lua scripts, migrations, fixtures,
 * devnet entries to spawn) expects.
 *
 * The operator CLI, which the tests spawn dozens of times, is bundled too (`entryCommand`,
 * tests/helpers/entry.ts, runs it when the run says where bundles are: TEST_BUNDLE_DIR); the servers and
 * devnets the tests spawn still run their .ts entries through tsx, as `npm start` does.
 */
const OUT = path.join(ROOT, ".data", "test-bundle");
/** Entries spawned by tests and bundled with them: scripts whose whole body runs when loaded. */
const ENTRIES = ["scripts/operator/main.ts"];

const sources: Plugin = {
  name: "test-sources",
  setup(b) {
    // A bare specifier (a package): external, by the path the importer would get.
    b.onResolve({ filter: /^[^./]/ }, async (args) => {
      if (args.pluginData === "resolving" || args.path.startsWith("node:") || args.path.startsWith("@stake/"))
        return undefined;
      const r = await b.resolve(args.path, {
        kind: args.kind,
        importer: args.importer,
        resolveDir: args.resolveDir,
        pluginData: "resolving",
      });
      if (r.errors.length) return { errors: r.errors };
      return { path: r.path, external: true };
    });
    b.onLoad({ filter: /\.ts$/ }, async (args) => {
      if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
      const text = await readFile(args.path, "utf8");
      const meta = {
        url: pathToFileURL(args.path).href,
        dirname: path.dirname(args.path),
        filename: args.path,
      };
      // Not inside a string (a quote or backtick right before it): this file's own, say.
      const contents = text.replace(/(?<!["'`])\bimport\.meta\.(url|dirname|filename)\b/g, (_, k) =>
        JSON.stringify(meta[k as keyof typeof meta]),
      );
      return { contents, loader: "ts", resolveDir: path.dirname(args.path) };
    });
  },
};

/**
 * Builds every file and ENTRIES afresh; returns the directory (for TEST_BUNDLE_DIR) and each file
 * (relative to the root) with the bundle that runs it.
 */
export async function bundleTests(files: string[]): Promise<{ dir: string; bundles: Map<string, string> }> {
  await rm(OUT, { recursive: true, force: true });
  await build({
    entryPoints: [...files, ...ENTRIES].map((f) => path.join(ROOT, f)),
    outdir: OUT,
    outbase: ROOT,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: true,
    logLevel: "warning",
    plugins: [sources],
  });
  return { dir: OUT, bundles: new Map(files.map((f) => [f, bundleOf(OUT, f)])) };
}
