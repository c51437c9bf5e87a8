import { formatCoins } from "@stake/db/coin";
import { rateLimitPolicy, rateLimitState } from "@stake/db/ratelimit-fields";
import type { PartyRateLimit } from "@stake/db/redis/scripts";
import type { RequestWindow } from "./ledger.ts";

/** The policy name in the RateLimit fields: the per-party request limit, the only quota the gateway keeps. */
export const PARTY_POLICY = "party";

/**
 * The IETF RateLimit header fields (structured-field form, @stake/db/ratelimit-fields; docs/gateway.md,
 * "Per-party request limit") from the counter reserve.lua keeps: one policy, `"party";q=<limit>;w=<window
 * s>`, and the party's window once this request is counted, `"party";r=<left>;t=<s to the window's end>`.
 * Both fields are Lists, so a provider's own RateLimit fields relayed alongside combine with these. No
 * limit configured: no fields.
 */
export function createLimitHeaders(rate: PartyRateLimit) {
  const policy = rateLimitPolicy(PARTY_POLICY, rate.limit, rate.windowMs);
  return (window: RequestWindow | undefined): string[] =>
    rate.limit > 0 && window
      ? [
          "ratelimit-policy",
          policy,
          "ratelimit",
          rateLimitState(PARTY_POLICY, window.remaining, window.resetMs),
        ]
      : [];
}

/** A reservation's cost as the coin decimal string of `gateway-cost`, formatted once per distinct cost. */
export function createCostFormatter() {
  const formatted = new Map<bigint, string>();
  return (cost: bigint): string => {
    let text = formatted.get(cost);
    if (text === undefined) {
      if (formatted.size > 10_000) formatted.clear();
      text = formatCoins(cost);
      formatted.set(cost, text);
    }
    return text;
  };
}
