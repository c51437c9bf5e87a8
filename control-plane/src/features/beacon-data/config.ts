import { z } from "zod";

/**
 * The beacon-chain data area's variables and its config (the beacon node URL itself is ETH_BEACON_URL,
 * shared), composed into the control plane's (`config.ts`).
 */
export const BeaconDataConfig = z
  .object({
    ETH_EXECUTION_URL: z
      .url()
      .default("http://127.0.0.1:8545")
      .describe(
        "Execution-node JSON-RPC (deposit and EIP-7002/7251 logs, blocks, receipts) the beacon-data indexer reads.",
      ),
    ETH_EXECUTION_TIMEOUT_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(10_000)
      .describe("Timeout of one execution-node JSON-RPC call, in milliseconds."),
    BEACON_INDEXER_INTERVAL_MS: z.coerce
      .number()
      .int()
      .min(100)
      .default(6_000)
      .describe(
        "Pause between two beacon-data indexer steps (each indexes every complete epoch not yet indexed, up to BEACON_INDEXER_MAX_EPOCHS).",
      ),
    BEACON_INDEXER_MAX_EPOCHS: z.coerce
      .number()
      .int()
      .min(1)
      .default(8)
      .describe(
        "Most epochs one indexer step writes (catching up after a pause goes in steps of this size).",
      ),
    BEACON_INDEXER_START_EPOCH: z.coerce
      .number()
      .int()
      .min(0)
      .optional()
      .describe(
        "First epoch the indexer reads when it has no cursor yet. Default: the node's finalized epoch at first start.",
      ),
    BEACON_BACKFILL_EPOCHS: z.coerce
      .number()
      .int()
      .min(0)
      .default(225)
      .describe(
        "How many epochs before the last indexed one the indexer reads for a pubkey registered after they were indexed (never before the index's first epoch; the beacon node must serve those states). 0 turns the backfill off.",
      ),
    BEACON_BACKFILL_EPOCHS_PER_STEP: z.coerce
      .number()
      .int()
      .min(1)
      .default(4)
      .describe(
        "Most earlier epochs one indexer step reads for registered pubkeys, across every organisation (pubkeys first tracked at the same epoch are read together): the global backfill budget.",
      ),
    BEACON_REGISTERED_PER_ORGANISATION: z.coerce
      .number()
      .int()
      .min(1)
      .default(1000)
      .describe(
        "Pubkeys an organisation may register (POST /api/validators/register); past it 409 REGISTRATION_LIMIT_REACHED.",
      ),
    BEACON_REGISTER_PER_MINUTE: z.coerce
      .number()
      .int()
      .min(1)
      .default(10)
      .describe(
        "POST /api/validators/register calls allowed per organisation per minute (each can cost a Beacon API call); past it 429.",
      ),
    BEACON_DATA_PROVIDER: z
      .string()
      .min(1)
      .default("stake")
      .describe("The `provider` name in GET /api/rewards/overview."),
  })
  .transform((e) => ({
    executionUrl: e.ETH_EXECUTION_URL,
    executionTimeoutMs: e.ETH_EXECUTION_TIMEOUT_MS,
    intervalMs: e.BEACON_INDEXER_INTERVAL_MS,
    maxEpochsPerStep: e.BEACON_INDEXER_MAX_EPOCHS,
    startEpoch: e.BEACON_INDEXER_START_EPOCH,
    backfillEpochs: e.BEACON_BACKFILL_EPOCHS,
    backfillEpochsPerStep: e.BEACON_BACKFILL_EPOCHS_PER_STEP,
    registeredPerOrganisation: e.BEACON_REGISTERED_PER_ORGANISATION,
    registerPerMinute: e.BEACON_REGISTER_PER_MINUTE,
    provider: e.BEACON_DATA_PROVIDER,
  }));

export type BeaconDataConfig = z.output<typeof BeaconDataConfig>;
