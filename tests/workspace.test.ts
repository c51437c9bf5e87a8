import assert from "node:assert/strict";
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, statSync, writeFileSync } from "node:fs";
import { builtinModules } from "node:module";
import { tmpdir } from "node:os";
import path from "node:path";
import { describe, it } from "node:test";
import { buildSync } from "esbuild";

/**
 * The workspace's own rules, checked from the files themselves:
 * - each package (the root owns scripts/, tests/, devnet/) declares every package its files import, so
 *   nothing works only because pnpm happened to hoist a neighbour's dependency;
 * - one version range per dependency across every package.json, so one library is one version;
 * - nothing outside tests/ imports from tests/: `npm start`, the operator CLI and the deployables run
 *   without test code;
 * - nothing under devnet/ imports from control-plane/: a simulated node is the independent reference the
 *   control plane is checked against, so it computes its state its own way, never with the code under test.
 * - scripts/ reaches another package only through its published entries (`exports`, e.g.
 *   `@stake/control-plane/operator`), never by a relative path into its sources.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const SOURCE = /\.(?:ts|mts|cts|js|mjs|cjs)$/;
const DEPENDENCY_FIELDS = ["dependencies", "devDependencies", "peerDependencies", "optionalDependencies"];
// Specifiers resolved at run time rather than imported, e.g. a package's folder for its static files.
const RESOLVE_CALL = /(?:require|createRequire\([^)]*\))\.resolve\(\s*["']([^"']+)["']/g;

interface PackageJson {
  name?: string;
  [field: string]: unknown;
}

function workspacePackages(root: string): string[] {
  const yaml = readFileSync(path.join(root, "pnpm-workspace.yaml"), "utf8");
  const listed = [...yaml.matchAll(/^\s+-\s+["']?([^"'\s#]+)["']?\s*$/gm)].map((m) => m[1] as string);
  return [".", ...listed];
}

function readPackageJson(dir: string): PackageJson {
  return JSON.parse(readFileSync(path.join(dir, "package.json"), "utf8")) as PackageJson;
}

function declaredRanges(pkg: PackageJson): Map<string, string> {
  const out = new Map<string, string>();
  for (const field of DEPENDENCY_FIELDS)
    for (const [name, range] of Object.entries((pkg[field] ?? {}) as Record<string, string>))
      out.set(name, range);
  return out;
}

/** Source files of the package at `dir`, leaving out nested workspace packages (they are checked on their own). */
function sourceFiles(dir: string, nested: Set<string>): string[] {
  const out: string[] = [];
  const walk = (d: string) => {
    for (const entry of readdirSync(d)) {
      if (entry === "node_modules" || entry === "dist" || entry.startsWith(".")) continue;
      const p = path.join(d, entry);
      if (statSync(p).isDirectory()) {
        if (!nested.has(p)) walk(p);
      } else if (SOURCE.test(entry)) out.push(p);
    }
  };
  walk(dir);
  return out;
}

// What esbuild's parse leaves out, as it drops types before listing a file's imports: type-only import and
// export statements, and a module named in a type (`import(…).Name`).
const TYPE_ONLY =
  /^\s*(?:import|export)\s+type\s[^;]*?\bfrom\s*["']([^"']+)["']|\bimport\(\s*["']([^"']+)["']\s*\)\./gm;

/**
 * Every specifier each file imports, as written: esbuild parses the files (every import external, so
 * nothing is followed) and lists each one's imports in its metafile.
 */
function specifiersOf(root: string, files: string[]): Map<string, string[]> {
  const { metafile } = buildSync({
    entryPoints: files,
    absWorkingDir: root,
    bundle: true,
    write: false,
    metafile: true,
    external: ["*"],
    platform: "node",
    format: "esm",
    outdir: "out",
    // Never written; hashed so `x.ts` and `x.mjs` beside it name two outputs.
    entryNames: "[dir]/[name]-[hash]",
    logLevel: "silent",
  });
  const out = new Map<string, string[]>();
  for (const [input, { imports }] of Object.entries(metafile.inputs)) {
    const file = path.resolve(root, input);
    const text = readFileSync(file, "utf8");
    out.set(file, [
      ...imports.map((i) => i.path),
      ...[...text.matchAll(TYPE_ONLY)].map((m) => (m[1] ?? m[2]) as string),
      ...[...text.matchAll(RESOLVE_CALL)].map((m) => m[1] as string),
    ]);
  }
  return out;
}

/** `@scope/name/sub/path` → `@scope/name`; `name/sub` → `name`; undefined for relative and built-in. */
function packageName(specifier: string): string | undefined {
  if (specifier.startsWith(".") || specifier.startsWith("/") || specifier.startsWith("node:"))
    return undefined;
  const parts = specifier.split("/");
  if (builtinModules.includes(parts[0] as string)) return undefined;
  return specifier.startsWith("@") ? parts.slice(0, 2).join("/") : parts[0];
}

/** Every rule broken in the workspace at `root`, one readable line each (empty: all is well). */
function workspaceProblems(root: string): string[] {
  const problems: string[] = [];
  const dirs = workspacePackages(root).map((p) => path.resolve(root, p));
  const nested = new Set(dirs.filter((d) => d !== root));
  const testsDir = path.join(root, "tests") + path.sep;
  const devnetDir = path.join(root, "devnet") + path.sep;
  const controlPlaneDir = path.join(root, "control-plane") + path.sep;
  const scriptsDir = path.join(root, "scripts") + path.sep;
  const rangesByDependency = new Map<string, Map<string, string[]>>();

  for (const dir of dirs) {
    const pkg = readPackageJson(dir);
    const label = path.relative(root, path.join(dir, "package.json"));
    const declared = declaredRanges(pkg);
    for (const [name, range] of declared) {
      const ranges = rangesByDependency.get(name) ?? new Map<string, string[]>();
      ranges.set(range, [...(ranges.get(range) ?? []), label]);
      rangesByDependency.set(name, ranges);
    }
    const undeclared = new Map<string, string>();
    for (const [file, specifiers] of specifiersOf(root, sourceFiles(dir, nested))) {
      const relFile = path.relative(root, file);
      for (const spec of specifiers) {
        const name = packageName(spec);
        if (name !== undefined) {
          if (!declared.has(name) && name !== pkg.name && !undeclared.has(name))
            undeclared.set(name, relFile);
          continue;
        }
        const target = path.resolve(path.dirname(file), spec);
        if (spec.startsWith(".") && !file.startsWith(testsDir) && target.startsWith(testsDir))
          problems.push(`${relFile} imports test code: ${spec}`);
        if (file.startsWith(devnetDir) && target.startsWith(controlPlaneDir))
          problems.push(`${relFile} imports the code under test: ${spec}`);
        if (file.startsWith(scriptsDir) && [...nested].some((d) => target.startsWith(d + path.sep)))
          problems.push(`${relFile} reaches into another package's files: ${spec}`);
      }
    }
    for (const [name, file] of undeclared)
      problems.push(`${label} does not declare "${name}" (imported by ${file})`);
  }

  for (const [name, ranges] of rangesByDependency)
    if (ranges.size > 1) {
      const where = [...ranges].map(([range, files]) => `${range} in ${files.join(", ")}`).join("; ");
      problems.push(`"${name}" has ${ranges.size} version ranges: ${where}`);
    }
  return problems;
}

describe("workspace packages", () => {
  it("declare every package they import, agree on each range, keep test code to tests/, devnet/ independent and scripts/ to published entries", () => {
    assert.deepEqual(workspaceProblems(ROOT), []);
  });

  it("the check reports an undeclared import, two ranges, an import of test code, a devnet import of the control plane and a script reaching into a package", () => {
    const root = mkdtempSync(path.join(tmpdir(), "workspace-check-"));
    try {
      const write = (file: string, text: string) => {
        mkdirSync(path.dirname(path.join(root, file)), { recursive: true });
        writeFileSync(path.join(root, file), text);
      };
      write("pnpm-workspace.yaml", "packages:\n  - lib\n");
      write("package.json", JSON.stringify({ devDependencies: { zod: "^4.6.7" } }));
      write("lib/package.json", JSON.stringify({ name: "@x/lib", dependencies: { zod: "^4.1.12" } }));
      write(
        "lib/src/a.ts",
        'import { z } from "zod";\nimport { join } from "node:path";\nimport "@x/lib/b";\n',
      );
      // Comments and strings that merely mention a package are not imports.
      write("lib/src/b.ts", '// import "not-a-dependency"\nexport const s = "import x from \'nope\'";\n');
      write("lib/src/c.ts", 'export const e = await import("drizzle-orm/pg-core");\n');
      write(
        "scripts/up.ts",
        'import { fixture } from "../tests/helpers/fixture.ts";\nimport "zod";\nimport "../lib/src/b.ts";\n',
      );
      write("tests/helpers/fixture.ts", 'import "../../scripts/up.ts";\nexport const fixture = 1;\n');
      write("control-plane/src/decode.ts", "export const decode = 1;\n");
      write("devnet/node/chain.ts", 'import { decode } from "../../control-plane/src/decode.ts";\n');
      assert.deepEqual(workspaceProblems(root).sort(), [
        `"zod" has 2 version ranges: ^4.6.7 in package.json; ^4.1.12 in lib/package.json`,
        "devnet/node/chain.ts imports the code under test: ../../control-plane/src/decode.ts",
        'lib/package.json does not declare "drizzle-orm" (imported by lib/src/c.ts)',
        "scripts/up.ts imports test code: ../tests/helpers/fixture.ts",
        "scripts/up.ts reaches into another package's files: ../lib/src/b.ts",
      ]);
    } finally {
      rmSync(root, { recursive: true, force: true });
    }
  });
});
