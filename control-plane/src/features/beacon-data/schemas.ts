import { validatorStatus } from "@stake/db/schema/beacon-data";
import { z } from "zod";
import { blsPubkey } from "../../chains/beacon.ts";
import { evmAddress } from "../../chains/evm.ts";
import { pagedQuery } from "../../http/paging.ts";
import { endNotBefore, queryList } from "../../http/query.ts";
import { BeaconStatus, BeaconStatusHistory } from "./lifecycle.ts";

const pubkey = blsPubkey();
const address = evmAddress();

const list = <T extends z.ZodType<string, string>>(item: T) => queryList(item, 100);

const paging = pagedQuery;
const epoch = z.coerce
  .number()
  .int()
  .min(0)
  .max(2 ** 31 - 1);
const day = z.iso.date("must be a date YYYY-MM-DD");

export const RegisterRequest = z.object({ pubkeys: z.array(pubkey).min(1).max(100) });
export const ListQuery = z.object({
  ...paging,
  pubkeys: list(pubkey).optional(),
  withdrawal_addresses: list(address).optional(),
});
export const EpochQuery = z
  .object({ ...paging, start_epoch: epoch, end_epoch: epoch })
  .superRefine(endNotBefore("start_epoch", "end_epoch"));
/** Longest date range: ten years (3,660 days, leap days included). */
const MAX_DATE_RANGE_DAYS = 3660;
export const DateQuery = z
  .object({ ...paging, start_date: day, end_date: day, interval: z.enum(["1d", "7d", "30d"]) })
  .superRefine(endNotBefore("start_date", "end_date"))
  .refine((q) => Date.parse(q.end_date) - Date.parse(q.start_date) <= MAX_DATE_RANGE_DAYS * 86_400_000, {
    path: ["end_date"],
    message: "Must be at most 10 years after start_date",
  });
export const TransactionsQuery = z.object({ ...paging, pubkeys: list(pubkey).optional() });

export type ListQuery = z.output<typeof ListQuery>;
export type EpochQuery = z.output<typeof EpochQuery>;
export type DateQuery = z.output<typeof DateQuery>;
export type TransactionsQuery = z.output<typeof TransactionsQuery>;

const Gwei = z.string().regex(/^-?\d+$/);
const Envelope = {
  page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
  pages: z.number().int(),
};
const Lifecycle = z.enum(validatorStatus.enumValues);

export const RegisterResponse = z.object({ registered: z.array(z.string()) });
export const ValidatorListResponse = z.object({
  results: z.array(
    z.object({
      validator: z.object({
        fee_recipient: z.string().nullable().meta({
          description:
            "The provisioned fee recipient, else where the validator's latest indexed proposal paid it (a builder block's payment, a local block's coinbase); null before any.",
        }),
        network: z.enum(["HOODI", "MAINNET"]),
        pubkey: z.string(),
        beacon_status: BeaconStatus.nullable(),
        withdrawal_address: z.string().nullable(),
        withdrawal_credentials: z.string().nullable(),
        index: z.number().int().nullable(),
        balances: z.object({ current_staked: Gwei }),
        lifecycle: z.object({
          status_history: z.array(z.object({ status: Lifecycle, time: z.iso.datetime() })),
          beacon_status_history: BeaconStatusHistory,
        }),
      }),
    }),
  ),
  ...Envelope,
});
/** The unit and definition clients kept asking for; docs/beacon-data.md, section APY, has the detail. */
const Apy = (days: number) =>
  z
    .number()
    .nullable()
    .meta({
      description:
        `Percent per year (3.1 = 3.1 %): rewards of the last ${days} days ÷ time-weighted stake, annualised; ` +
        `null while the index does not reach back ${days} days (never an extrapolation). ` +
        "On the compressed-time devnet (2 s slots, frequent proposals) it reads in the thousands of percent.",
    });
/** Said by the reward reads whose zeros may only mean "not indexed yet". */
const IndexState = {
  indexed_through_epoch: z
    .number()
    .int()
    .nullable()
    .meta({ description: "The last epoch the indexer has read (null: none yet); totals count up to it." }),
  indexing: z.boolean().meta({
    description:
      "True while the figures may be short because indexing runs: nothing indexed yet, the index more than " +
      "2 epochs behind the chain's clock, or registered pubkeys not yet counted. Zeros then mean 'not read " +
      "yet', not 'no rewards'.",
  }),
};
/** The two parts of an EL reward (our addition; docs/beacon-data.md, "EL reward"). */
const MevReward = Gwei.meta({
  description:
    "Part of el_reward (our addition): what builders paid the proposer's fee recipient on builder (MEV-boost) blocks, Gwei.",
});
const PriorityFees = Gwei.meta({
  description:
    "Part of el_reward (our addition): the priority fees of the blocks the validator built itself, Gwei; el_reward = mev_reward + priority_fees.",
});
/** The CL reward's parts (our addition; docs/beacon-data.md, "CL reward breakdown"). */
const part = (description: string) => Gwei.meta({ description: `${description}, Gwei (signed)` });
const ClBreakdown = z
  .object({
    attestation_source: part("Attestation source reward (negative: the penalty for a missed source vote)"),
    attestation_target: part("Attestation target reward (negative: the penalty for a missed target vote)"),
    attestation_head: part("Attestation head reward"),
    attestation_inactivity: part("Inactivity-leak penalty (0 or negative)"),
    sync_committee: part("Sync-committee reward (negative: the penalty for a missed signature)"),
    proposer: part(
      "Proposer reward of the blocks proposed (attestations, sync aggregate, slashings included)",
    ),
    slashing: part("The initial slashing penalty (0 or negative)"),
    unexplained: part(
      "What the beacon node's rewards endpoints leave unaccounted for in the balance change (0 when they agree)",
    ),
    not_broken_down: part(
      "CL reward of validator-epochs whose node did not serve the rewards endpoints (no parts known)",
    ),
  })
  .meta({
    description:
      "Our addition: the CL reward's parts as the beacon node's standard rewards endpoints report them; they sum to the CL reward beside it. The attestation parts of epoch e are those the epoch's processing pays (duties of e − 2).",
  });
const ElTotals = {
  total_cl_rewards: Gwei,
  total_cl_breakdown: ClBreakdown,
  total_el_rewards: Gwei,
  total_mev_rewards: MevReward,
  total_priority_fees: PriorityFees,
};
export const OverviewResponse = z.object({
  network: z.string(),
  provider: z.string(),
  total_active_stake: Gwei,
  ...ElTotals,
  apy_7d: Apy(7),
  apy_30d: Apy(30),
  apy_365d: Apy(365),
  apy_unit: z.literal("percent_per_year").meta({ description: "The unit of the three apy_* fields." }),
  ...IndexState,
});
const ValidatorReward = z.object({
  pubkey: z.string(),
  cl_reward: Gwei,
  cl_breakdown: ClBreakdown,
  el_reward: Gwei,
  mev_reward: MevReward,
  priority_fees: PriorityFees,
  index: z.number().int(),
});
export const EpochRewardsResponse = z.object({
  start_epoch: z.number().int(),
  end_epoch: z.number().int(),
  ...ElTotals,
  interval_summary: z.array(
    z.object({ epoch: z.number().int(), timestamp: z.iso.datetime(), validators: z.array(ValidatorReward) }),
  ),
  ...Envelope,
});
export const DateRewardsResponse = z.object({
  start_date: z.string(),
  end_date: z.string(),
  ...ElTotals,
  interval_summary: z.array(z.object({ date: z.iso.date(), validators: z.array(ValidatorReward) })),
  ...IndexState,
  ...Envelope,
});
export const TransactionsResponse = z.object({
  results: z.array(
    z.object({
      transactionHash: z.string(),
      blockNumber: z.number().int(),
      blockTimestamp: z.number().int(),
      data: z.string(),
      fee: Gwei,
      from: z.string(),
      to: z.string(),
      layer: z.enum(["EXECUTION_LAYER", "CONSENSUS_LAYER"]),
      type: z.enum(["DEPOSIT", "PARTIAL_EXIT", "FULL_WITHDRAWAL", "CONSOLIDATE", "SWITCH"]),
      pubkey: z.string(),
      sourcePubkey: z.string().nullable(),
      targetPubkey: z.string().nullable(),
      amount: Gwei,
      withdrawalAddress: z.string().nullable(),
      withdrawalCredentials: z.string().nullable(),
    }),
  ),
  ...Envelope,
});
