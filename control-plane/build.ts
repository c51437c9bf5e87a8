/**
 * Builds the pages (`control-plane/src/features/{dashboard,console}/page`, Preact) into
 * `control-plane/dist/<page>/`: hashed assets plus `manifest.json` naming them. The control plane only
 * reads these files, so esbuild and Preact stay out of the running process. `npm start` and `npm test`
 * run this before they start a control plane; `npm run build` runs it by hand.
 */
import { createHash } from "node:crypto";
import { mkdirSync, rmSync, writeFileSync } from "node:fs";
import { fileURLToPath, pathToFileURL } from "node:url";
import { build } from "esbuild";

/**
 * The V8 flags the worker runs with (`npm start`, the fault and settlement stacks, `npm run worker`, and
 * `npm run bench:gateway`, whose settlement passes run in its own process). Its young generation's
 * semi-spaces may grow to 32 MB, as the gateway's (gateway/build.ts): a settlement pass reads 5,000
 * stream events at a time, a few hundred thousand short-lived strings, which a 16 MB nursery copies and
 * promotes before the batch is done with them. Measured (docs/benchmarks.md): worker CPU per
 * 1,000 reservations 38-40 → 29-33 ms (`bench:settlement`), settlement in `bench:gateway` 23.0-23.5k →
 * 26.7-27.9k reservations/s; the cost is at most 48 MB more young generation (3 × 16 MB) under load.
 */
export const WORKER_NODE_FLAGS = ["--max-semi-space-size=32"];

/** What `dist/<page>/manifest.json` holds: the hashed file names the HTML shell links. */
export interface PageManifest {
  script: string;
  style: string;
  icon: string;
}

/** The pages the control plane serves (src/http/page-bundle.ts), each from its feature's `page/` folder. */
const PAGES = ["dashboard", "console"] as const;
const SRC = fileURLToPath(new URL("src/features/", import.meta.url));
const DIST = fileURLToPath(new URL("dist/", import.meta.url));
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b57d0"/><path d="M4 8h8M8 4v8" stroke="#fff" stroke-width="2"/></svg>`;

/** Writes `control-plane/dist/<page>/` afresh for one page. */
async function buildPage(page: (typeof PAGES)[number]): Promise<PageManifest> {
  const out = `${DIST}${page}/`;
  rmSync(out, { recursive: true, force: true });
  mkdirSync(out, { recursive: true });
  const result = await build({
    absWorkingDir: `${SRC}${page}/page/`,
    entryPoints: ["main.tsx"],
    outdir: out,
    entryNames: "[name]-[hash]",
    bundle: true,
    minify: true,
    metafile: true,
    format: "esm",
    target: ["es2022", "chrome109", "firefox115", "safari16"],
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "none",
    logLevel: "warning",
  });
  const outputs = Object.keys(result.metafile.outputs).map((p) => p.slice(p.lastIndexOf("/") + 1));
  const named = (ext: string) => {
    const name = outputs.find((n) => n.startsWith("main-") && n.endsWith(ext));
    if (!name) throw new Error(`the ${page} build wrote no main-*${ext}`);
    return name;
  };
  const icon = `icon-${createHash("sha256").update(ICON).digest("hex").slice(0, 8)}.svg`;
  writeFileSync(`${out}${icon}`, ICON);
  const manifest: PageManifest = { script: named(".js"), style: named(".css"), icon };
  writeFileSync(`${out}manifest.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

/** Writes every page (the gateway dashboard and the organisations' console) side by side. */
export async function buildDashboard(): Promise<PageManifest[]> {
  return Promise.all(PAGES.map(buildPage));
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await buildDashboard();
