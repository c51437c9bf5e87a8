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
 * One esbuild call for every entry, the modules they share split into chunks, takes a second or two; each
 * process then loads in a few reads. `npm test` compiles its test files and the entries they spawn;
 * `npm start` the servers and devnets it starts.
 *
 * The bundles run as their sources would:
 * - packages from node_modules stay external, imported by the absolute path esbuild resolves them to from
 *   the importing file (a package of any workspace member is found, though the bundle lives elsewhere);
 * - `import.meta.url`, `.dirname` and `.filename` keep naming the source file, as code that finds files
 *   beside itself (Lua scripts, migrations, fixtures) expects;
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
    logLevel: "warning",
    plugins: [asSources(outdir)],
  });
}

function asSources(outdir: string): Plugin {
  return {
    name: "as-sources",
    setup(b) {
      // A bare specifier (a package): external, by the path the importer would get.
      b.onResolve({ filter: /^[^./]/ }, async (args) => {
        if (
          args.pluginData === "resolving" ||
          args.path.startsWith("node:") ||
          args.path.startsWith("@stake/")
        )
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
        const own = JSON.stringify(bundleOf(outdir, args.path));
        // `process.argv[1]` is no name esbuild can define: rewritten in the text (it appears in our sources
        // only in entries' main checks).
        const text = (await readFile(args.path, "utf8")).replace(
          /\bprocess\.argv\[1\]/g,
          `(process.argv[1] === ${own} ? ${JSON.stringify(args.path)} : process.argv[1])`,
        );
        // import.meta through esbuild's own define: only the expression, never the same words in a string.
        const { code } = await transform(text, {
          loader: "ts",
          sourcefile: args.path,
          sourcemap: "inline",
          // What the build would take from tsconfig.base.json (a transform reads no tsconfig).
          tsconfigRaw: { compilerOptions: { target: "ES2023", verbatimModuleSyntax: true } },
          define: {
            "import.meta.url": JSON.stringify(pathToFileURL(args.path).href),
            "import.meta.dirname": JSON.stringify(path.dirname(args.path)),
            "import.meta.filename": JSON.stringify(args.path),
          },
        });
        return { contents: code, loader: "js", resolveDir: path.dirname(args.path) };
      });
    },
  };
}
