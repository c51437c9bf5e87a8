import { readdir, readFile } from "node:fs/promises";
import path from "node:path";
import { fileURLToPath } from "node:url";
import { AppError } from "../../errors.ts";
import type { DashboardConfig } from "./config.ts";

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

/** Where `control-plane/build.ts` writes the page (`npm start` and `npm test` run it first). */
const DIST = fileURLToPath(new URL("../../../dist/dashboard/", import.meta.url));
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

/**
 * The page is built ahead of time (control-plane/build.ts) and read from disk once per process, on the
 * first request or at start-up through `prepareDashboard`: the files do not change while it runs.
 */
let loaded: Promise<Bundle> | undefined;
function bundle(): Promise<Bundle> {
  loaded ??= loadBundle();
  return loaded;
}

/** Reads the bundle now (main.ts), so a missing build stops start-up instead of the first visitor's page. */
export async function prepareDashboard(): Promise<void> {
  await bundle();
}

async function loadBundle(): Promise<Bundle> {
  let manifest: { script: string; style: string; icon: string };
  try {
    manifest = JSON.parse(await readFile(path.join(DIST, "manifest.json"), "utf8"));
  } catch (err) {
    throw new Error(`the dashboard is not built (${DIST}manifest.json unreadable): run \`npm run build\``, {
      cause: err,
    });
  }
  const assets = new Map<string, Asset>();
  for (const name of await readdir(DIST)) {
    const ext = name.slice(name.lastIndexOf(".") + 1);
    if (name === "manifest.json" || !TYPES[ext]) continue;
    assets.set(name, { type: TYPES[ext], body: await readFile(path.join(DIST, name)) });
  }
  return { assets, ...manifest };
}

const escapeAttr = (s: string) =>
  s.replace(/[&"<>]/g, (c) => ({ "&": "&amp;", '"': "&quot;", "<": "&lt;", ">": "&gt;" })[c]!);

/** The dashboard: one HTML shell over the hashed bundle, its settings in data attributes (no inline script). */
export function createDashboardService(config: DashboardConfig) {
  return {
    async page() {
      const b = await bundle();
      const html = `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>Gateway account</title>
<link rel="icon" href="/dashboard/assets/${b.icon}" type="image/svg+xml">
<link rel="stylesheet" href="/dashboard/assets/${b.style}">
<script type="module" src="/dashboard/assets/${b.script}"></script>
</head>
<body data-gateway-url="${escapeAttr(config.gatewayUrl)}" data-refresh-seconds="${config.refreshSeconds}">
<div id="app"><noscript>The gateway account dashboard needs JavaScript.</noscript></div>
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

    async asset(name: string) {
      const asset = (await bundle()).assets.get(name);
      if (!asset) throw new AppError("NOT_FOUND", "No such dashboard asset");
      return {
        type: asset.type,
        body: asset.body,
        headers: { "Cache-Control": IMMUTABLE, "X-Content-Type-Options": "nosniff" },
      };
    },
  };
}

export type DashboardService = ReturnType<typeof createDashboardService>;
