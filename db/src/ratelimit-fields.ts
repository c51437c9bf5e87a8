/**
 * The IETF RateLimit header fields in their structured-field form (draft-ietf-httpapi-ratelimit-headers:
 * `RateLimit-Policy: "name";q=<quota>;w=<window s>`, `RateLimit: "name";r=<remaining>;t=<s until reset>`),
 * written once for the control plane's per-key limits and the gateway's per-party limit. The draft counts
 * windows and resets in whole seconds: both are rounded up (a window is at least 1 s), and a remaining
 * count below zero is 0.
 */
export function rateLimitPolicy(name: string, quota: number, windowMs: number): string {
  return `"${name}";q=${quota};w=${Math.max(1, Math.ceil(windowMs / 1000))}`;
}

export function rateLimitState(name: string, remaining: number, resetMs: number): string {
  return `"${name}";r=${Math.max(0, remaining)};t=${Math.max(0, Math.ceil(resetMs / 1000))}`;
}
