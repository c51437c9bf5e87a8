import { z } from "zod";
import { endNotBefore } from "../../http/query.ts";

/** Longest range of GET /api/rates: 366 days, a leap year's worth of points. */
export const MAX_RATE_DAYS = 366;
const day = z.iso.date("must be a date YYYY-MM-DD");

export const RatesQuery = z
  .object({
    from: day,
    to: day,
    validator: z
      .string()
      .regex(/^(\d{1,10}|0x[0-9a-fA-F]{96})$/, "must be a validator index or a 0x-prefixed 48-byte pubkey")
      .optional(),
  })
  .superRefine(endNotBefore("from", "to"))
  .refine((q) => Date.parse(q.to) - Date.parse(q.from) < MAX_RATE_DAYS * 86_400_000, {
    path: ["to"],
    message: `Must be at most ${MAX_RATE_DAYS} days from from (both included)`,
  });
export type RatesQuery = z.output<typeof RatesQuery>;

const Rate = (what: string, days: number) =>
  z
    .number()
    .nullable()
    .meta({
      description:
        `${what} of the ${days} days ending this date, percent per year (earned ÷ average stake × 365 ÷ ${days}); ` +
        "null when the index does not cover every epoch of the window, or there was no stake.",
    });
export const Rates = z.object({
  cl_7d: Rate("Consensus-layer rewards", 7),
  el_7d: Rate("Execution-layer rewards (priority fees and MEV)", 7),
  total_7d: Rate("All rewards", 7),
  cl_30d: Rate("Consensus-layer rewards", 30),
  el_30d: Rate("Execution-layer rewards (priority fees and MEV)", 30),
  total_30d: Rate("All rewards", 30),
});
export const RatesResponse = z.object({
  data: z.array(
    z.object({
      date: z.iso.date(),
      organisation: Rates,
      network: Rates.meta({
        description: "The index's network sample: every validator any organisation tracks, each once.",
      }),
      validator: Rates.optional(),
    }),
  ),
});

const Gwei = z.string().regex(/^\d+$/);
const Wei = z.string().regex(/^\d+$/);
export const EthereumNetworkResponse = z.object({
  network: z.string(),
  state: z.literal("head"),
  slot: z.number().int(),
  epoch: z.number().int(),
  time: z.iso.datetime(),
  active_validators: z.number().int(),
  total_active_stake: Gwei.meta({ description: "Σ balances of the active validators, Gwei." }),
  total_active_effective_balance: Gwei.meta({ description: "get_total_active_balance, Gwei." }),
  balance_churn_limit: Gwei.meta({ description: "get_balance_churn_limit, Gwei an epoch." }),
  activation_exit_churn_limit: Gwei.meta({ description: "get_activation_exit_churn_limit, Gwei an epoch." }),
  entry_queue: z.object({
    pending_deposits: z.number().int(),
    pending_balance: Gwei,
    wait_epochs: z.number().int(),
    wait_seconds: z.number().int(),
  }),
  exit_queue: z.object({
    validators: z.number().int(),
    balance: Gwei,
    pending_partial_withdrawals: z.number().int(),
    earliest_exit_epoch: z.number().int(),
    wait_epochs: z.number().int(),
    wait_seconds: z.number().int(),
  }),
  request_fees: z.object({
    withdrawal_request: Wei.meta({ description: "EIP-7002 fee now, wei." }),
    consolidation_request: Wei.meta({ description: "EIP-7251 fee now, wei." }),
  }),
});
