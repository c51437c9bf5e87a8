/**
 * Splits `/gateway/<providerKey>/<rest>?query` and normalises `<rest>`. `.` and `..` segments are
 * resolved (also when percent-encoded, since the provider may decode them); climbing above the provider's
 * base path is refused. Returns null for anything that is not a valid gateway path.
 */
export function parseGatewayPath(url: string): { providerKey: string; path: string; query: string } | null {
  const q = url.indexOf("?");
  const pathname = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? "" : url.slice(q);
  if (!pathname.startsWith("/gateway/")) return null;
  const segments = pathname.slice("/gateway/".length).split("/");
  const providerKey = segments.shift() ?? "";
  if (!/^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/.test(providerKey)) return null;
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] as string;
    const dots = seg.replace(/%2e/gi, ".");
    if (dots === ".") {
      if (i === segments.length - 1) out.push("");
      continue;
    }
    if (dots === "..") {
      if (out.length === 0) return null;
      out.pop();
      if (i === segments.length - 1) out.push("");
      continue;
    }
    if (/%2f|%5c|\\/i.test(seg) && /(^|%2f|%5c|\\)(\.|%2e){2}(%2f|%5c|\\|$)/i.test(seg)) return null;
    out.push(seg);
  }
  return { providerKey, path: `/${out.join("/")}`, query };
}

/** Joins the provider's base path (no trailing slash) and the normalised request path. */
export function joinBasePath(basePath: string, path: string): string {
  const base = basePath.endsWith("/") ? basePath.slice(0, -1) : basePath;
  return `${base}${path}`;
}
