import { rateLimitPolicy, rateLimitState } from "@stake/db/ratelimit-fields";
import type { PartyRateLimit } from "@stake/db/redis/scripts";
import type { KeyLimit } from "@stake/db/schema/gateway";
import type { RequestWindow } from "./ledger.ts";

/** The policy name in the RateLimit fields of the per-party request limit. */
export const PARTY_POLICY = "party";

/** A key's named limits in the RateLimit fields: their names in order, and their RateLimit-Policy items. */
export interface KeyPolicy {
  names: string[];
  policy: string;
}

/** Built once per key record (auth/authenticate.ts); null when the key has no limits of its own. */
export function keyPolicyOf(limits: readonly KeyLimit[]): KeyPolicy | null {
  if (limits.length === 0) return null;
  return {
    names: limits.map((l) => l.name),
    policy: limits.map((l) => rateLimitPolicy(l.name, l.requests, l.windowSeconds * 1000)).join(", "),
  };
}

/**
 * The IETF RateLimit header fields (structured-field form, @stake/db/ratelimit-fields; docs/gateway.md,
 * "RateLimit header fields") from the counters reserve.lua keeps: the party's policy
 * `"party";q=<limit>;w=<window s>` and window once this request is counted, `"party";r=<left>;t=<s to the
 * window's end>`, then one item per named limit of the key (reserve.lua's `kw`: "r t" per limit, in the
 * key's order). Both fields are Lists, so a provider's own RateLimit fields relayed alongside combine with
 * these. No limit at all: no fields.
 */
export function createLimitHeaders(rate: PartyRateLimit) {
  const partyPolicy = rateLimitPolicy(PARTY_POLICY, rate.limit, rate.windowMs);
  return (window: RequestWindow | undefined, key?: KeyPolicy | null, keyWindows?: string): string[] => {
    const party = rate.limit > 0 && window;
    if (!key || !keyWindows) {
      if (!party) return [];
      return [
        "ratelimit-policy",
        partyPolicy,
        "ratelimit",
        rateLimitState(PARTY_POLICY, window.remaining, window.resetMs),
      ];
    }
    const nums = keyWindows.split(" ");
    const states = key.names.map((name, i) =>
      rateLimitState(name, Number(nums[2 * i]), Number(nums[2 * i + 1])),
    );
    if (party) states.unshift(rateLimitState(PARTY_POLICY, window.remaining, window.resetMs));
    return [
      "ratelimit-policy",
      party ? `${partyPolicy}, ${key.policy}` : key.policy,
      "ratelimit",
      states.join(", "),
    ];
  };
}
