import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AppError } from "../errors.ts";

interface Asset {
  type: string;
  body: Buffer;
}

interface Bundle {
  /** Hashed file name → content, e.g. `main-3KQ2ZT5L.js`. */
  assets: Map<string, Asset>;
  script: string;
  style: string;
  icon: string;
}

/** Where `control-plane/build.ts` writes each page (`npm start` and `npm test` run it first). */
const DIST = fileURLToPath(new URL("../../dist/", import.meta.url));
const TYPES: Record<string, string> = { js: "text/javascript", css: "text/css", svg: "image/svg+xml" };

/**
 * Only this origin, no inline script or style, no framing: an injected `<script>` or `style=` does not run,
 * and the page can talk to nothing but its own API.
 */
export const CONTENT_SECURITY_POLICY = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join("; ");

/** Hashed names never change content, so browsers may keep them for a year without asking again. */
const IMMUTABLE = "public, max-age=31536000, immutable";

const escapeAttr = (s: string) =>
  s.replace(/[&"<>]/g, (c) => ({ "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;" })[c]!);

export type PageName = "dashboard" | "console";

const loaded = new Map<PageName, Promise<Bundle>>();
function loadPage(name: PageName): Promise<Bundle> {
  let b = loaded.get(name);
  if (!b) {
    b = readBundle(name);
    loaded.set(name, b);
  }
  return b;
}

/** Reads every page now (main.ts), so a missing build stops start-up instead of the first visitor's page. */
export async function preparePages(): Promise<void> {
  await Promise.all([loadPage("dashboard"), loadPage("console")]);
}

async function readBundle(name: PageName): Promise<Bundle> {
  const dist = path.join(DIST, name);
  let manifest: { script: string; style: string; icon: string };
  try {
    manifest = JSON.parse(await readFile(path.join(dist, "manifest.json"), "utf8"));
  } catch (err) {
    throw new Error(
      `the ${name} page is not built (${dist}/manifest.json unreadable): run \`npm run build\``,
      {
        cause: err,
      },
    );
  }
  const assets = new Map<string, Asset>();
  for (const file of await readdir(dist)) {
    const ext = file.slice(file.lastIndexOf(".") + 1);
    if (file === "manifest.json" || !TYPES[ext]) continue;
    assets.set(file, { type: TYPES[ext], body: await readFile(path.join(dist, file)) });
  }
  return { assets, ...manifest };
}

/**
 * One page built ahead of time (control-plane/build.ts) into `dist/<name>/`, served under `/<name>`: an
 * HTML shell over hashed assets, its settings in data attributes (no inline script). The files are read
 * from disk once per process, on the first request or at start-up through `preparePages`: they do not change
 * while it runs.
 */
export function createPageBundle(name: PageName, shell: { title: string; noscript: string }) {
  const bundle = () => loadPage(name);
  return {
    async page(data: Record<string, string | number> = {}) {
      const b = await bundle();
      const attrs = Object.entries(data)
        .map(([k, v]) => ` data-${k}="${escapeAttr(String(v))}"`)
        .join("");
      const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${shell.title}</title>
<link rel="icon" href="/${name}/assets/${b.icon}" type="image/svg+xml">
<link rel="stylesheet" href="/${name}/assets/${b.style}">
<script type="module" src="/${name}/assets/${b.script}"></script>
</head>
<body${attrs}>
<div id="app"><noscript>${shell.noscript}</noscript></div>
</body>
</html>
`;
      return {
        body: html,
        headers: {
          "Content-Security-Policy": CONTENT_SECURITY_POLICY,
          "Cache-Control": "no-cache",
          "X-Content-Type-Options": "nosniff",
          "Referrer-Policy": "no-referrer",
        },
      };
    },

    async asset(file: string) {
      const asset = (await bundle()).assets.get(file);
      if (!asset) throw new AppError("NOT_FOUND", `No such ${name} asset`);
      return {
        type: asset.type,
        body: asset.body,
        headers: { "Cache-Control": IMMUTABLE, "X-Content-Type-Options": "nosniff" },
      };
    },
  };
}

export type PageBundle = ReturnType<typeof createPageBundle>;
