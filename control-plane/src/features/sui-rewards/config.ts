import { z } from "zod";
import { SUI_ADDRESS } from "../../chains/sui.ts";

/** The devnet's `operator` and `sample` validators (devnet/sui/scenario.ts), the defaults for `npm start`. */
export const DEVNET_SUI_VALIDATORS = [
  "0xe52470451f83ca854c40ef65462c31b1d63107726a523e624d729f68912f82f2",
  "0xf8a63a07194ce2b93b4c6683314b5d5bd808b9168161f66650a203438fc2bb80",
];

const SUI = SUI_ADDRESS.source.slice(1, -1);
const ADDRESS_LIST = new RegExp(`^\\s*${SUI}(\\s*,\\s*${SUI})*\\s*$`);

/** The Sui rewards area's variables and its config (composed into the control plane's, `config.ts`). */
export const SuiRewardsConfig = z
  .object({
    SUI_RPC_URL: z
      .url()
      .default("http://127.0.0.1:9125/graphql")
      .describe(
        "Sui GraphQL RPC endpoint (e.g. https://graphql.mainnet.sui.io/graphql); the default is the simulated node.",
      ),
    SUI_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .max(120_000)
      .default(10_000)
      .describe("Timeout of one Sui GraphQL request, in milliseconds (past it: 504)."),
    SUI_VALIDATOR_ADDRESSES: z
      .string()
      .regex(ADDRESS_LIST, "comma-separated Sui addresses (0x followed by 64 hex digits)")
      .default(DEVNET_SUI_VALIDATORS.join(","))
      .describe(
        "Comma-separated Sui addresses of the operator's validators: their staking pools are indexed and reported (default: the devnet's).",
      ),
    SUI_INDEX_FROM_EPOCH: z.coerce
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "First epoch whose exchange rate is indexed (default: each pool's activation epoch). Must not be later than the earliest stake's activation.",
      ),
    SUI_INDEX_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(1000)
      .default(60_000)
      .describe(
        "Pause between two passes of the worker's Sui indexer (pools' new epochs, followed delegators).",
      ),
    SUI_FOLLOWS_PER_ORGANISATION: z.coerce
      .number()
      .int()
      .min(0)
      .default(100)
      .describe(
        "Delegators outside its scope an organisation may have the worker follow at once (past it: 403 SUI_FOLLOW_LIMIT_REACHED).",
      ),
    SUI_FOLLOW_EXPIRY_DAYS: z.coerce
      .number()
      .int()
      .min(1)
      .default(7)
      .describe(
        "A delegator outside every scope is synced until this many days after its last query, then no longer followed.",
      ),
    SUI_MAX_PAGES_PER_SYNC: z.coerce
      .number()
      .int()
      .min(1)
      .default(20)
      .describe(
        "GraphQL pages (50 nodes each) one read may follow: unstake events resume from their cursor on the next pass; more owned stakes than that fail the delegator's sync.",
      ),
  })
  .transform((e) => ({
    rpcUrl: e.SUI_RPC_URL,
    timeoutMs: e.SUI_TIMEOUT_MS,
    validators: e.SUI_VALIDATOR_ADDRESSES.split(",").map((a) => a.trim().toLowerCase()),
    fromEpoch: e.SUI_INDEX_FROM_EPOCH,
    indexIntervalMs: e.SUI_INDEX_INTERVAL_MS,
    followsPerOrganisation: e.SUI_FOLLOWS_PER_ORGANISATION,
    followExpiryMs: e.SUI_FOLLOW_EXPIRY_DAYS * 86_400_000,
    maxPages: e.SUI_MAX_PAGES_PER_SYNC,
  }));

export type SuiRewardsConfig = z.output<typeof SuiRewardsConfig>;
