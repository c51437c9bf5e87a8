import { z } from "zod";
import { evmAddress } from "../../chains/evm.ts";

/** The delegation area's variables, composed into the control plane's (`config.ts`, docs/style.md §4). */
export const HyperliquidConfig = z
  .object({
    HYPERLIQUID_API_URL: z
      .url()
      .default("http://127.0.0.1:3001")
      .describe("Hyperliquid API base URL (POST /info and /exchange); the default is the simulated node."),
    HYPERLIQUID_VALIDATOR_ADDRESS: evmAddress()
      .default("0x5ac99df645f3414876c816caa18b2d234024b487")
      .describe(
        "The operator's Hyperliquid validator that delegate/undelegate target (default: the devnet's).",
      ),
    HYPERLIQUID_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(60000)
      .default(5000)
      .describe("Timeout of each Hyperliquid API call; past it the request fails with 504."),
  })
  .transform((e) => ({
    apiUrl: e.HYPERLIQUID_API_URL.replace(/\/+$/, ""),
    validatorAddress: e.HYPERLIQUID_VALIDATOR_ADDRESS,
    timeoutMs: e.HYPERLIQUID_TIMEOUT_MS,
  }));

export type HyperliquidConfig = z.output<typeof HyperliquidConfig>;
