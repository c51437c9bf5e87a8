import { z } from "zod";
import { evmAddress } from "../../chains/evm.ts";

/** The delegator's L1 address: strictly `0x` and 40 hex digits, any case (compared lower-case). */
export const PendingRewardsRequest = z.object({
  stake_account_address: z.string().trim().pipe(evmAddress()),
});
export type PendingRewardsRequest = z.output<typeof PendingRewardsRequest>;

export const PendingRewardsResponse = z.object({
  code: z.literal(200),
  data: z.object({
    pending_rewards: z
      .number()
      .describe("POL (1 POL = 10^18 wei) not yet claimed: getLiquidRewards at the latest block"),
    pending_rewards_wei: z.string().describe("the same amount exactly, in wei (decimal string)"),
  }),
});
export type PendingRewardsResponse = z.infer<typeof PendingRewardsResponse>;

const apr = (days: number) =>
  z
    .number()
    .nullable()
    .describe(
      `percent a year earned by delegators over the last ${days} day(s), net of commission; null while the stored history does not reach back that far`,
    );

export const AprResponse = z.object({
  code: z.literal(200),
  data: z.object({
    apr_1d: apr(1),
    apr_7d: apr(7),
    apr_30d: apr(30),
    as_of: z.string().describe("ISO 8601 time of the L1 block the windows end at (the newest snapshot)"),
    block: z.number().int().describe("that L1 block's number"),
  }),
});
export type AprResponse = z.infer<typeof AprResponse>;
