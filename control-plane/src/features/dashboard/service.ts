import { createHash } from "node:crypto";
import { fileURLToPath } from "node:url";
import { build } from "esbuild";
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

const PAGE = fileURLToPath(new URL("./page/", import.meta.url));
const TYPES: Record<string, string> = { js: "text/javascript", css: "text/css", svg: "image/svg+xml" };
const ICON = `<svg xmlns="http://www.w3.org/2000/svg" viewBox="0 0 16 16"><rect width="16" height="16" rx="3" fill="#0b57d0"/><path d="M4 8h8M8 4v8" stroke="#fff" stroke-width="2"/></svg>`;

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
 * The page is bundled in memory by esbuild on the first request (or at start-up through `warm`), once per
 * process: the sources do not change while it runs, and no build output has to be kept in step on disk.
 */
let bundled: Promise<Bundle> | undefined;
function bundle(): Promise<Bundle> {
  bundled ??= buildBundle();
  return bundled;
}

/** Builds the bundle now (main.ts), so a broken build stops start-up instead of the first visitor's page. */
export async function prepareDashboard(): Promise<void> {
  await bundle();
}

async function buildBundle(): Promise<Bundle> {
  const result = await build({
    absWorkingDir: PAGE,
    entryPoints: ["main.tsx"],
    outdir: "out",
    entryNames: "[name]-[hash]",
    bundle: true,
    minify: true,
    write: false,
    format: "esm",
    target: ["es2022", "chrome109", "firefox115", "safari16"],
    jsx: "automatic",
    jsxImportSource: "preact",
    legalComments: "none",
    logLevel: "silent",
  });
  const assets = new Map<string, Asset>();
  for (const file of result.outputFiles) {
    const name = file.path.slice(file.path.lastIndexOf("/") + 1);
    const ext = name.slice(name.lastIndexOf(".") + 1);
    assets.set(name, { type: TYPES[ext] ?? "application/octet-stream", body: Buffer.from(file.contents) });
  }
  const icon = `icon-${createHash("sha256").update(ICON).digest("hex").slice(0, 8)}.svg`;
  assets.set(icon, { type: TYPES.svg!, body: Buffer.from(ICON) });
  const named = (ext: string) => [...assets.keys()].find((n) => n.startsWith("main-") && n.endsWith(ext));
  return { assets, script: named(".js")!, style: named(".css")!, icon };
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
