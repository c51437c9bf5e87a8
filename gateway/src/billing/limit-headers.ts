import { formatCoins } from "@stake/db/coin";
import type { PartyRateLimit } from "@stake/db/redis/scripts";
import type { RequestWindow } from "./ledger.ts";

/** The policy name in the RateLimit fields: the per-party request limit, the only quota the gateway keeps. */
export const PARTY_POLICY = "party";

/**
 * The IETF RateLimit header fields (draft-ietf-httpapi-ratelimit-headers, structured-field form; see
 * docs/gateway.md, "RateLimit header fields"), built from the counter reserve.lua keeps: one policy,
 * `"party";q=<limit>;w=<window s>`, and the party's state `"party";r=<left>;t=<s to the window's end>`.
 * The draft counts windows and resets in whole seconds, so a sub-second window is rounded up. Both
 * fields are Lists, so a provider's own RateLimit fields relayed alongside combine with these.
 * No limit configured: no fields.
 */
export function createLimitHeaders(rate: PartyRateLimit) {
  const policy = `"${PARTY_POLICY}";q=${rate.limit};w=${Math.max(1, Math.ceil(rate.windowMs / 1000))}`;
  return (window: RequestWindow | undefined): string[] =>
    rate.limit > 0 && window
      ? [
          "ratelimit-policy",
          policy,
          "ratelimit",
          `"${PARTY_POLICY}";r=${window.remaining};t=${Math.ceil(window.resetMs / 1000)}`,
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
