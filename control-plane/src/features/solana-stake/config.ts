import { z } from "zod";

/** The stake-account area's variables, composed into the control plane's (`config.ts`, docs/style.md §4). */
export const SolanaStakeConfig = z
  .object({
    SOLANA_RPC_URL: z
      .url()
      .default("http://127.0.0.1:8899")
      .describe("Solana JSON-RPC endpoint of the stake-account area (the simulated node listens on 8899)."),
    SOLANA_MEV_API_URL: z
      .url()
      .default("http://127.0.0.1:8899")
      .describe("Base URL of the Jito-style MEV staker-rewards API (GET <url>/api/v1/staker_rewards)."),
    SOLANA_REQUESTS_PER_KEY_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .default(120)
      .describe(
        "Stake-account area requests allowed per API key per minute (each can cost many Solana RPC calls).",
      ),
    SOLANA_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(10000)
      .describe(
        "Timeout of one Solana RPC or MEV API call, in milliseconds; past it the request fails with 504.",
      ),
  })
  .transform((e) => ({
    rpcUrl: e.SOLANA_RPC_URL,
    mevApiUrl: e.SOLANA_MEV_API_URL,
    timeoutMs: e.SOLANA_TIMEOUT_MS,
    requestsPerKeyPerMinute: e.SOLANA_REQUESTS_PER_KEY_PER_MINUTE,
  }));

export type SolanaStakeConfig = z.output<typeof SolanaStakeConfig>;
