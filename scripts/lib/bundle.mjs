// Plain JavaScript on purpose: the bootstrap (bootstrap.mjs) compiles `npm start`'s and `npm test`'s own
// TypeScript entry with it before anything TypeScript runs. Its types: bundle.d.mts.
import { readFileSync, statSync, writeFileSync } from "node:fs";
import { readFile, rm } from "node:fs/promises";
import path from "node:path";
import { pathToFileURL } from "node:url";
import { build, transform, version } from "esbuild";

const ROOT = path.resolve(import.meta.dirname, "..", "..");
/** What a build's freshness is checked against, beside its inputs: this file and the esbuild it drives. */
const BUNDLER = `${import.meta.filename} esbuild ${version}`;

/** Where bundleEntries writes the bundle of `file` (relative to the root, or absolute under it). */
export const bundleOf = (dir, file) =>
  path.join(dir, path.relative(ROOT, path.resolve(ROOT, file)).replace(/\.ts$/, ".mjs"));

/**
 * Our TypeScript entry points compiled ahead into ES module bundles that plain `node` runs (with source
 * maps, so a stack trace points at the .ts line). Through tsx, most of a process's start-up CPU went on
 * loading it: each of the hundreds of modules it imports resolved and transformed through the loader's
 * hooks (a profile of the control plane's smoke test: 9.7 of 13 CPU-seconds in module loading and tsx).
 * Even from a bundle, a file that left its packages to node spent two thirds of its busy CPU finding,
 * reading and compiling them, file by file (the smoke test: 0.7 of 1.1 s); with the packages bundled too
 * it uses 0.8 s of CPU in all instead of 1.4. One esbuild call for every entry, the modules they share
 * split into chunks; each process then loads in a few reads. `npm test` compiles its test files and the
 * entries they spawn; `npm start` the servers and devnets it starts; both their own entry first.
 *
 * A build is skipped when its entries and every input it read (sources and packages, by size and
 * modification time; this bundler and esbuild's version) are as they were at the last one: a restart
 * reuses the bundles, an edited file or a new install builds afresh. Returns whether it built.
 *
 * The bundles run as their sources would:
 * - every module, ours or a package's, keeps naming its own file: `import.meta.url`, `.dirname`,
 *   `.filename`, `__dirname` and `__filename` are its source's, as code that finds files beside itself
 *   (Lua scripts, migrations, fixtures, a package's worker or native prebuild) expects;
 * - `require.resolve` resolves from the module's own file; native addons (`.node` files) stay external,
 *   loaded from where the package put them; a `require` esbuild cannot follow (a computed name, a builtin
 *   from an ES module) resolves from the repository root;
 * - `process.argv[1]` reads as the source's path when it names the file's own bundle, so an entry's "am I
 *   the program?" check holds. Only the read is rewritten: the process's argv still names the bundle, which
 *   the gateway's cluster forks run again.
 *
 * The gateway's deployable is built apart (gateway/build.ts): one self-contained file, no source paths.
 */
export async function bundleEntries(entries, outdir) {
  const stamp = path.join(outdir, "inputs.json");
  const key = JSON.stringify([BUNDLER, ...entries]);
  if (isFresh(stamp, key)) return false;
  await rm(outdir, { recursive: true, force: true });
  const { metafile } = await build({
    entryPoints: entries.map((f) => path.resolve(ROOT, f)),
    outdir,
    outbase: ROOT,
    absWorkingDir: ROOT,
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
    metafile: true,
    logLevel: "warning",
    banner: {
      js: `import { createRequire as __createRequire } from "node:module"; const require = __createRequire(${JSON.stringify(path.join(ROOT, "package.json"))});`,
    },
    plugins: [asSources(outdir)],
  });
  const inputs = [import.meta.filename, ...Object.keys(metafile.inputs).map((f) => path.resolve(ROOT, f))];
  writeFileSync(stamp, JSON.stringify({ key, inputs: inputs.map((f) => [f, ...signature(f)]) }));
  return true;
}

/** A file's size and modification time; a file gone never matches. */
function signature(file) {
  try {
    const s = statSync(file);
    return [s.size, s.mtimeMs];
  } catch {
    return [-1, -1];
  }
}

function isFresh(stamp, key) {
  try {
    const last = JSON.parse(readFileSync(stamp, "utf8"));
    return (
      last.key === key &&
      last.inputs.every(([file, size, mtime]) => {
        const [s, m] = signature(file);
        return s === size && m === mtime;
      })
    );
  } catch {
    return false;
  }
}

function asSources(outdir) {
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
        if (!/__dirname|__filename|import\.meta|require\.resolve/.test(text)) return undefined;
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
 * `require.resolve` resolves from the file too (esbuild finds its native binary so), through a function
 * added at the end, where it changes no line and no "use strict" (a declaration is hoisted whole).
 */
async function ownNames(text, file, loader) {
  const resolves = text.includes("require.resolve");
  const { code } = await transform(
    resolves
      ? `${text}\nfunction __ownResolve(request, options) { return __createRequire(${JSON.stringify(file)}).resolve(request, options); }`
      : text,
    {
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
        ...(resolves ? { "require.resolve": "__ownResolve" } : {}),
      },
    },
  );
  return code;
}
