import { z } from "zod";
import { suiAddress } from "../../chains/sui.ts";
import { endNotBefore } from "../../http/query.ts";

const address = z.string().trim().pipe(suiAddress());

const isoDate = z
  .string()
  .regex(/^\d{4}-\d{2}-\d{2}$/, "Must be a date YYYY-MM-DD")
  .refine((d) => {
    const t = Date.parse(`${d}T00:00:00Z`);
    return !Number.isNaN(t) && new Date(t).toISOString().startsWith(d);
  }, "Must be a real calendar date");

/** Longest range one request may cover, in days counted inclusively (a leap year). */
export const MAX_RANGE_DAYS = 366;
const DAY_MS = 86_400_000;

export const RewardsRequest = z
  .object({ stake_account_address: address, start_date: isoDate, end_date: isoDate })
  .superRefine(endNotBefore("start_date", "end_date"))
  .refine((b) => (Date.parse(b.end_date) - Date.parse(b.start_date)) / DAY_MS + 1 <= MAX_RANGE_DAYS, {
    path: ["end_date"],
    message: `Range is over ${MAX_RANGE_DAYS} days`,
  });
export type RewardsRequest = z.output<typeof RewardsRequest>;

/** Defaults and bounds of the page (the spec gives none; these match the beacon area's `per_page`). */
export const PAGE_DEFAULTS = { page: 1, limit: 10, maxLimit: 100 } as const;

/**
 * `?page=2&limit=10`, and the spec's own spelling `?page=2?limit=10`, which a query parser reads as
 * `page = "2?limit=10"`: split back into its two parameters.
 */
export const RewardsPageQuery = z.preprocess(
  (q) => {
    if (!q || typeof q !== "object") return q;
    const query = { ...(q as Record<string, unknown>) };
    const m = typeof query.page === "string" ? /^([^?]*)\?limit=(.*)$/.exec(query.page) : null;
    if (m) {
      query.page = m[1];
      query.limit ??= m[2];
    }
    return query;
  },
  z.object({
    page: z.coerce.number().int().min(1).max(1_000_000).default(PAGE_DEFAULTS.page),
    limit: z.coerce.number().int().min(1).max(PAGE_DEFAULTS.maxLimit).default(PAGE_DEFAULTS.limit),
  }),
);
export type RewardsPageQuery = z.output<typeof RewardsPageQuery>;

export const RewardEntry = z.object({
  epochReward: z.number().describe("MIST earned during the epoch (credited at its end)"),
  principal: z.string().describe("MIST staked and active during the epoch"),
  totalRewards: z.string().describe("MIST earned through the end of the epoch, since the first stake"),
  date: z.string().describe("UTC date (YYYY-MM-DD) of the epoch's start"),
  epoch: z.number().int(),
});
export type RewardEntry = z.infer<typeof RewardEntry>;

export const Pagination = z.object({
  currentPage: z.number().int(),
  totalPages: z.number().int(),
  totalRewards: z.number().int().describe("number of reward entries over all pages"),
  hasNextPage: z.boolean(),
  hasPrevPage: z.boolean(),
});

export const DailyRewardsResponse = z.object({ rewards: z.array(RewardEntry), pagination: Pagination });
export type DailyRewardsResponse = z.infer<typeof DailyRewardsResponse>;
export const RewardsResponse = z.object({ success: z.literal(true), data: DailyRewardsResponse });
