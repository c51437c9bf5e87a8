import assert from "node:assert/strict";
import { existsSync, readdirSync, readFileSync } from "node:fs";
import path from "node:path";
import { test } from "node:test";
import { fileURLToPath } from "node:url";

/**
 * The repository stands alone: every document a file cites is in the repository, and every numbered
 * section it cites exists. A clone holds nothing beside the repository, so a citation of a sibling folder
 * (the project's design notes once lived there) is always broken.
 */
const ROOT = path.resolve(path.dirname(fileURLToPath(import.meta.url)), "..");
const SELF = path.relative(ROOT, fileURLToPath(import.meta.url));
const EXTENSIONS = [".ts", ".md", ".mjs", ".lua"];
const SKIP_DIRS = new Set(["node_modules", ".git", ".data", "dist", "coverage"]);

// Built from parts so this file does not cite what it forbids.
const SIBLING = `${".."}/${"shared"}`;
/** Old citation forms that name no file of the repository. */
const STALE = new RegExp(
  `\\b(?:${["DESIGN", "STYLE", "SPEC"].join("|")})(?:\\.md)? §|\\bchain notes §|` +
    `(?<![\\w./(-])(?:(?:${["DESIGN", "STYLE", "SPEC"].join("|")})\\.md|chains/[\\w-]+\\.md)`,
);
/** `docs/….md`, optionally followed by sections: `§6 step 7`, `§1.4 and §2`, `§1, §7`, `§4c`. */
const DOC_CITATION =
  /(?<![\w./-])(docs\/[\w./-]+?\.md)((?:(?:\s*,\s*|\s+and\s+|\s+)§[0-9]+(?:\.[0-9]+)*[a-z]?)*)/g;
const SECTION = /§([0-9]+(?:\.[0-9]+)*[a-z]?)/g;
/** Markdown links to local .md files, resolved against the linking file. */
const MD_LINK = /\]\((?!https?:|mailto:)([^)#\s]+\.md)(?:#[^)]*)?\)/g;

export interface Problem {
  file: string;
  line: number;
  message: string;
}

function walk(dir: string, out: string[]): string[] {
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) walk(path.join(dir, entry.name), out);
    } else if (EXTENSIONS.some((ext) => entry.name.endsWith(ext))) {
      out.push(path.join(dir, entry.name));
    }
  }
  return out;
}

const headingCache = new Map<string, Set<string>>();
/** The section numbers of a markdown file: `## 6. Gateway` → "6", `### 1.4 Network` → "1.4", `### 4c.` → "4c". */
function sectionsOf(absPath: string): Set<string> {
  let found = headingCache.get(absPath);
  if (!found) {
    found = new Set();
    for (const line of readFileSync(absPath, "utf8").split("\n")) {
      const m = /^#{1,6}\s+([0-9]+(?:\.[0-9]+)*[a-z]?)[.\s]/.exec(line);
      if (m?.[1]) found.add(m[1]);
    }
    headingCache.set(absPath, found);
  }
  return found;
}

/** Every broken citation in `text`, the content of `file` (a path relative to the repository root). */
export function checkText(file: string, text: string, root = ROOT): Problem[] {
  const problems: Problem[] = [];
  text.split("\n").forEach((content, i) => {
    const line = i + 1;
    if (content.includes(SIBLING))
      problems.push({ file, line, message: `cites ${SIBLING}, outside the repo` });
    const stale = STALE.exec(content);
    if (stale) problems.push({ file, line, message: `"${stale[0]}" names no file of the repo: cite docs/…` });
    for (const m of content.matchAll(DOC_CITATION)) {
      const target = path.join(root, m[1] as string);
      if (!existsSync(target)) {
        problems.push({ file, line, message: `${m[1]} does not exist` });
        continue;
      }
      for (const s of (m[2] ?? "").matchAll(SECTION)) {
        if (!sectionsOf(target).has(s[1] as string))
          problems.push({ file, line, message: `${m[1]} has no section §${s[1]}` });
      }
    }
    if (file.endsWith(".md")) {
      for (const m of content.matchAll(MD_LINK)) {
        const target = path.resolve(root, path.dirname(file), m[1] as string);
        if (!existsSync(target)) problems.push({ file, line, message: `link ${m[1]} does not exist` });
      }
    }
  });
  return problems;
}

test("every cited document and section exists inside the repository", () => {
  const files = walk(ROOT, []).map((f) => path.relative(ROOT, f));
  const problems: Problem[] = [];
  let citations = 0;
  for (const file of files) {
    if (file === SELF) continue;
    const text = readFileSync(path.join(ROOT, file), "utf8");
    citations += [...text.matchAll(DOC_CITATION)].length;
    problems.push(...checkText(file, text));
  }
  assert.deepEqual(
    problems.map((p) => `${p.file}:${p.line}: ${p.message}`),
    [],
    "broken citations (fix the citation or the docs/ section it names)",
  );
  // The code cites docs/ in dozens of places; far fewer means the scan itself went wrong.
  assert.ok(citations >= 25, `only ${citations} docs/ citations found`);
});

test("the checker reports each kind of broken citation", () => {
  const text = [
    `see ${SIBLING}/SPEC.md`,
    "offsets from DESIGN §6",
    "see docs/nowhere.md",
    "layout in docs/chains/solana.md §1.4 and §99",
    "vectors in docs/chains/hyperliquid.md §4c, §1",
    "[spec](missing.md)",
    "see SPEC.md and chains/solana.md",
  ].join("\n");
  const found = checkText("docs/example.md", text).map((p) => `${p.line}: ${p.message}`);
  assert.deepEqual(found, [
    `1: cites ${SIBLING}, outside the repo`,
    '2: "DESIGN §" names no file of the repo: cite docs/…',
    "3: docs/nowhere.md does not exist",
    "4: docs/chains/solana.md has no section §99",
    "6: link missing.md does not exist",
    '7: "SPEC.md" names no file of the repo: cite docs/…',
  ]);
});
