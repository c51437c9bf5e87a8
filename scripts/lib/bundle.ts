import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build, type Plugin, transform } from "esbuild";
import { ROOT } from "./infra.ts";
import { bundleOf } from "./processes.ts";

/**
 * Our TypeScript entry points compiled ahead into ES module bundles that plain `node` runs (with source
 * maps, so a stack trace points at the .ts line). Through tsx, most of a process's start-up CPU went on
 * loading it: each of the hundreds of modules it imports resolved and transformed through the loader's
 * hooks (a profile of the control plane's smoke test: 9.7 of 13 CPU-seconds in module loading and tsx).
 * Even from a bundle, a file that left its packages to node spent two thirds of its busy CPU finding,
 * reading and compiling them, file by file (the smoke test: 0.7 of 1.1 s); with the packages bundled too
 * it uses 0.8 s of CPU in all instead of 1.4. One esbuild call for every entry, the modules they share
 * split into chunks, takes two seconds; each process then loads in a few reads. `npm test` compiles its
 * test files and the entries they spawn; `npm start` the servers and devnets it starts.
 *
 * The bundles run as their sources would:
 * - every module, ours or a package's, keeps naming its own file: `import.meta.url`, `.dirname`,
 *   `.filename`, `__dirname` and `__filename` are its source's, as code that finds files beside itself
 *   (Lua scripts, migrations, fixtures, a package's worker or native prebuild) expects;
 * - native addons (`.node` files) stay external, loaded from where the package resolves them; a `require`
 *   esbuild cannot follow (a computed name, a builtin from an ES module) resolves from the repository root;
 * - `process.argv[1]` reads as the source's path when it names the file's own bundle, so an entry's "am I
 *   the program?" check holds. Only the read is rewritten: the process's argv still names the bundle, which
 *   the gateway's cluster forks run again.
 *
 * The gateway's deployable is built apart (gateway/build.ts): one self-contained file, no source paths.
 */
export async function bundleEntries(entries: string[], outdir: string): Promise<void> {
  await rm(outdir, { recursive: true, force: true });
  await build({
    entryPoints: entries.map((f) => path.resolve(ROOT, f)),
    outdir,
    outbase: ROOT,
    outExtension: { ".js": ".mjs" },
    bundle: true,
    splitting: true,
    chunkNames: "chunks/[name]-[hash]",
    platform: "node",
    format: "esm",
    target: "node20",
    sourcemap: true,
    // Stack traces need only the mappings: without the sources' text a process parses a tenth of the map.
    sourcesContent: false,
    logLevel: "warning",
    banner: {
      js: `import { createRequire as __createRequire } from "node:module"; const require = __createRequire(${JSON.stringify(path.join(ROOT, "package.json"))});`,
    },
    plugins: [asSources(outdir)],
  });
}

function asSources(outdir: string): Plugin {
  return {
    name: "as-sources",
    setup(b) {
      // Native addons stay where their package put them, loaded by absolute path at run time: one named by
      // its path (a miss, like another platform's build, throws there as it would from the source)…
      b.onResolve({ filter: /^\.{0,2}\/.*\.node$/ }, (args) => ({
        path: path.resolve(args.resolveDir, args.path),
        external: true,
      }));
      // …and one a package's name resolved to (its main file).
      b.onLoad({ filter: /\.node$/ }, (args) => ({
        contents: `module.exports = require(${JSON.stringify(args.path)});`,
        loader: "js",
      }));
      b.onLoad({ filter: /\.[cm]?js$/ }, async (args) => {
        const text = await readFile(args.path, "utf8");
        if (!/__dirname|__filename|import\.meta/.test(text)) return undefined;
        return {
          contents: await ownNames(text, args.path, "js"),
          loader: "js",
          resolveDir: path.dirname(args.path),
        };
      });
      b.onLoad({ filter: /\.ts$/ }, async (args) => {
        if (args.path.includes(`${path.sep}node_modules${path.sep}`)) return undefined;
        const own = JSON.stringify(bundleOf(outdir, args.path));
        // `process.argv[1]` is no name esbuild can define: rewritten in the text (it appears in our sources
        // only in entries' main checks).
        const text = (await readFile(args.path, "utf8")).replace(
          /\bprocess\.argv\[1\]/g,
          `(process.argv[1] === ${own} ? ${JSON.stringify(args.path)} : process.argv[1])`,
        );
        return {
          contents: await ownNames(text, args.path, "ts"),
          loader: "js",
          resolveDir: path.dirname(args.path),
        };
      });
    },
  };
}

/**
 * The module's text with the names of its own file defined, through esbuild's define (only the
 * expressions, never the same words in a string, nor a local of the same name), and a source map to it.
 */
async function ownNames(text: string, file: string, loader: "ts" | "js"): Promise<string> {
  const { code } = await transform(text, {
    loader,
    sourcefile: file,
    sourcemap: "inline",
    // What the build would take from tsconfig.base.json (a transform reads no tsconfig).
    tsconfigRaw: { compilerOptions: { target: "ES2023", verbatimModuleSyntax: true } },
    define: {
      "import.meta.url": JSON.stringify(pathToFileURL(file).href),
      "import.meta.dirname": JSON.stringify(path.dirname(file)),
      "import.meta.filename": JSON.stringify(file),
      __dirname: JSON.stringify(path.dirname(file)),
      __filename: JSON.stringify(file),
    },
  });
  return code;
}
