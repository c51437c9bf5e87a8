const PROVIDER_KEY = /^[A-Za-z0-9][A-Za-z0-9_.-]{0,99}$/;

/**
 * Characters no segment may carry, refused like an escape because servers and frameworks disagree on
 * them: `;` starts path parameters (Tomcat and Jetty drop `..;` down to `..`), `%00` ends a C string, and
 * `%25` (an encoded `%`) turns into a fresh escape such as `%2e` when a second hop decodes again.
 */
const AMBIGUOUS = /;|%00|%25/i;

/** Why a URL is not a gateway path: no valid provider key (the spec's row), or a refused upstream path. */
export type PathRefusal = { refused: "PROVIDER_KEY_REQUIRED" | "PATH_REFUSED" };
const NO_PROVIDER_KEY: PathRefusal = { refused: "PROVIDER_KEY_REQUIRED" };
const REFUSED: PathRefusal = { refused: "PATH_REFUSED" };

/**
 * Splits `/gateway/<providerKey>/<rest>?query` and normalises `<rest>`. `.` and `..` segments are
 * resolved (also when percent-encoded, since the provider may decode them); climbing above the provider's
 * base path, and a segment with an AMBIGUOUS character, is refused (`PATH_REFUSED`: the provider key is
 * there, so "Provider key is required" would name the wrong fault). A URL without a valid provider key is
 * `PROVIDER_KEY_REQUIRED`.
 */
export function parseGatewayPath(
  url: string,
): { providerKey: string; path: string; query: string } | PathRefusal {
  const q = url.indexOf("?");
  const pathname = q === -1 ? url : url.slice(0, q);
  const query = q === -1 ? "" : url.slice(q);
  if (!pathname.startsWith("/gateway/")) return NO_PROVIDER_KEY;
  const slash = pathname.indexOf("/", "/gateway/".length);
  const providerKey = pathname.slice("/gateway/".length, slash === -1 ? undefined : slash);
  if (!PROVIDER_KEY.test(providerKey)) return NO_PROVIDER_KEY;
  if (slash === -1) return { providerKey, path: "/", query };
  const rest = pathname.slice(slash);
  // With no `.`, `%`, `;` or `\\` no segment can be a dot segment or an escape: nothing to resolve or refuse.
  if (!/[.%;\\]/.test(rest)) return { providerKey, path: rest, query };
  if (AMBIGUOUS.test(rest)) return REFUSED;
  const segments = rest.slice(1).split("/");
  const out: string[] = [];
  for (let i = 0; i < segments.length; i++) {
    const seg = segments[i] as string;
    const dots = seg.replace(/%2e/gi, ".");
    if (dots === ".") {
      if (i === segments.length - 1) out.push("");
      continue;
    }
    if (dots === "..") {
      if (out.length === 0) return REFUSED;
      out.pop();
      if (i === segments.length - 1) out.push("");
      continue;
    }
    if (/%2f|%5c|\\/i.test(seg) && /(^|%2f|%5c|\\)(\.|%2e){2}(%2f|%5c|\\|$)/i.test(seg)) return REFUSED;
    out.push(seg);
  }
  return { providerKey, path: `/${out.join("/")}`, query };
}

/** Joins the provider's base path (no trailing slash) and the normalised request path. */
export function joinBasePath(basePath: string, path: string): string {
  const base = basePath.endsWith("/") ? basePath.slice(0, -1) : basePath;
  return `${base}${path}`;
}
