import assert from "node:assert/strict";
import { execFileSync } from "node:child_process";
import { existsSync, readFileSync } from "node:fs";
import path from "node:path";
import { describe, it } from "node:test";

/**
 * The shape of the house (docs/style.md §2, §9, §11; docs/architecture.md §12), checked from the files
 * themselves so it holds as the code grows: no source file over 400 lines, no reference to an issue or a
 * session (they are not in the repository; a comment cites `docs/` instead), no feature importing another
 * feature's repository, job or worker module, no repository opening a transaction or emitting an event,
 * and no import circle.
 */
const ROOT = path.resolve(import.meta.dirname, "..");
const tracked = execFileSync("git", ["ls-files", "-co", "--exclude-standard"], {
  cwd: ROOT,
  encoding: "utf8",
})
  .split("\n")
  .filter((f) => f && existsSync(path.join(ROOT, f)));
const code = tracked.filter((f) => /\.(ts|tsx|mjs|lua)$/.test(f));
const sources = code.filter((f) => !f.startsWith("tests/") && !/\.test\.tsx?$/.test(f));
const read = (f: string) => readFileSync(path.join(ROOT, f), "utf8");

/** docs/style.md §9: the bound, and what it does not cover (solidity sources of the devnet, generated files). */
const MAX_LINES = 400;
/**
 * Files another change is working on at the same time, exempt until that change lands. Empty: every file
 * keeps the house's shape; an entry is a debt, taken off when its change lands.
 */
const SPLITTING = new Set<string>([]);

export function linesOf(text: string) {
  return text.endsWith("\n") ? text.split("\n").length - 1 : text.split("\n").length;
}

/** An issue or session number cited as if the reader could open it. */
export const DIARY_REFERENCE = /\b(?:issues?|sessions?)\s+#?\d+/i;

/** What a feature file imports from another feature's folder: the module path inside that feature. */
const FEATURE_IMPORT = /from\s*["']\.\.\/([a-z0-9-]+)\/([^"']+)["']/g;
/** Modules of a feature no other feature may import: its repositories, jobs, indexers and workers. */
export const PRIVATE_MODULE = /(?:^|\/|-)(?:repo|jobs|indexer|worker)\.ts$/;

const IMPORT_SPEC =
  /(?:^|\n)\s*(?:import|export)\s[^"';]*?from\s*["']([^"']+)["']|import\(\s*["']([^"']+)["']\s*\)|(?:^|\n)\s*import\s+["']([^"']+)["']/g;

/** Where a workspace import (`@stake/<pkg>/<sub>`) resolves, from each package's `exports`. */
function resolveWorkspace(spec: string): string | null {
  const m = /^@stake\/([a-z-]+)(?:\/(.+))?$/.exec(spec);
  if (!m) return null;
  const pkgDir = m[1] === "db" ? "db" : (m[1] as string);
  const exports = JSON.parse(read(`${pkgDir}/package.json`)).exports as Record<string, string>;
  const sub = m[2] ? `./${m[2]}` : ".";
  const direct = exports[sub];
  if (direct) return path.join(pkgDir, direct);
  const wildcard = exports["./*"];
  return wildcard ? path.join(pkgDir, wildcard.replace("*", m[2] ?? "")) : null;
}

/** The import graph of the workspace's code, type-only imports included (a circle of types is one too). */
export function importGraph(files: string[]) {
  const known = new Set(files);
  const graph = new Map<string, string[]>();
  for (const f of files) {
    const out: string[] = [];
    for (const m of read(f).matchAll(IMPORT_SPEC)) {
      const spec = (m[1] ?? m[2] ?? m[3]) as string;
      const target = spec.startsWith(".") ? path.join(path.dirname(f), spec) : resolveWorkspace(spec);
      if (target && known.has(target)) out.push(target);
    }
    graph.set(f, out);
  }
  return graph;
}

/** The strongly connected components of more than one module, or one importing itself (Tarjan). */
export function circles(graph: Map<string, string[]>): string[][] {
  let next = 0;
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const out: string[][] = [];
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v) as number, low.get(w) as number));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v) as number, index.get(w) as number));
    }
    if (low.get(v) === index.get(v)) {
      const component: string[] = [];
      let w: string;
      do {
        w = stack.pop() as string;
        onStack.delete(w);
        component.push(w);
      } while (w !== v);
      if (component.length > 1 || graph.get(v)?.includes(v)) out.push(component.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return out;
}

describe("the shape of the house", () => {
  it(`no source file is over ${MAX_LINES} lines (docs/style.md §9)`, () => {
    const over = sources
      .filter((f) => !SPLITTING.has(f))
      .map((f) => `${f}: ${linesOf(read(f))}`)
      .filter((line) => Number(line.split(": ")[1]) > MAX_LINES);
    assert.deepEqual(over, []);
  });

  it("no source cites an issue or a session: comments cite docs/ sections (docs/style.md §9)", () => {
    const found = code
      .filter((f) => !SPLITTING.has(f))
      .flatMap((f) =>
        read(f)
          .split("\n")
          .flatMap((line, i) => (DIARY_REFERENCE.test(line) ? [`${f}:${i + 1}: ${line.trim()}`] : [])),
      );
    assert.deepEqual(found, []);
  });

  it("no feature imports another feature's repository, job, indexer or worker module (§12)", () => {
    const found: string[] = [];
    for (const f of sources.filter((s) => s.startsWith("control-plane/src/features/"))) {
      for (const m of read(f).matchAll(FEATURE_IMPORT))
        if (PRIVATE_MODULE.test(m[2] as string)) found.push(`${f}: ../${m[1]}/${m[2]}`);
    }
    assert.deepEqual(found, []);
  });

  it("no repository opens a transaction or emits an event: the service owns the unit of work (§2)", () => {
    const repositories = sources.filter((f) => /(?:^|\/|-)repo\.ts$/.test(f));
    assert.ok(repositories.length > 10, "the scan finds the repositories");
    const found = repositories.flatMap((f) => {
      const text = read(f);
      return [
        /\.transaction\(/.test(text) ? `${f}: opens a transaction` : [],
        // A handle to open one is the service's (its `db`), not the repository's to hand out.
        /\.transaction\.bind\(/.test(text) && !SPLITTING.has(f) ? `${f}: hands out a transaction` : [],
        /\bemitEvents?\(|platform\/outbox/.test(text) ? `${f}: emits an event` : [],
      ].flat();
    });
    assert.deepEqual(found, []);
  });

  it("no import circle, type-only imports included", () => {
    assert.deepEqual(circles(importGraph(code)), []);
  });

  it("the checks can fail: a circle, a diary reference, a private module", () => {
    const graph = new Map([
      ["a.ts", ["b.ts"]],
      ["b.ts", ["c.ts"]],
      ["c.ts", ["a.ts"]],
      ["d.ts", ["a.ts"]],
    ]);
    assert.deepEqual(circles(graph), [["a.ts", "b.ts", "c.ts"]]);
    // Built from parts, so this file cites nothing itself.
    assert.ok(DIARY_REFERENCE.test(`the webhook outbox, ${"issue"} 28`));
    assert.ok(DIARY_REFERENCE.test(`measured in ${"Session"} 21`));
    assert.ok(!DIARY_REFERENCE.test("docs/architecture.md §6 step 7"));
    assert.ok(PRIVATE_MODULE.test("indexer-repo.ts") && PRIVATE_MODULE.test("jobs.ts"));
    assert.ok(!PRIVATE_MODULE.test("tracking.ts"));
  });
});
