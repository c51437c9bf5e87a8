/**
 * Builds the dashboard page (`control-plane/src/features/dashboard/page`, Preact) into
 * `control-plane/dist/dashboard/`: hashed assets plus `manifest.json` naming them. The control plane only
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

/** What `dist/dashboard/manifest.json` holds: the hashed file names the HTML shell links. */
export interface DashboardManifest {
  script: string;
  style: string;
  icon: string;
}

const PAGE = fileURLToPath(new URL("src/features/dashboard/page/", import.meta.url));
const OUT = fileURLToPath(new URL("dist/dashboard/", import.meta.url));
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b57d0"/><path d="M4 8h8M8 4v8" stroke="#fff" stroke-width="2"/></svg>`;

/** Writes `control-plane/dist/dashboard/` afresh. */
export async function buildDashboard(): Promise<DashboardManifest> {
  rmSync(OUT, { recursive: true, force: true });
  mkdirSync(OUT, { recursive: true });
  const result = await build({
    absWorkingDir: PAGE,
    entryPoints: ["main.tsx"],
    outdir: OUT,
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
    if (!name) throw new Error(`the dashboard build wrote no main-*${ext}`);
    return name;
  };
  const icon = `icon-${createHash("sha256").update(ICON).digest("hex").slice(0, 8)}.svg`;
  writeFileSync(`${OUT}${icon}`, ICON);
  const manifest: DashboardManifest = { script: named(".js"), style: named(".css"), icon };
  writeFileSync(`${OUT}manifest.json`, `${JSON.stringify(manifest, null, 2)}\n`);
  return manifest;
}

if (import.meta.url === pathToFileURL(process.argv[1] ?? "").href) await buildDashboard();
