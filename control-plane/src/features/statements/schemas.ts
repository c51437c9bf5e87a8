import { z } from "zod";

const month = z
  .string()
  .regex(/^\d{4}-(0[1-9]|1[0-2])$/, { message: "Must be a month, YYYY-MM" })
  .meta({ description: "UTC month, YYYY-MM" });
const chain = z.enum(["ethereum", "solana", "polygon", "sui", "hyperliquid"]).meta({
  description:
    "ethereum (gwei: CL, priority fees, MEV, end-of-day balance), solana (lamports, 10^-9 SOL), polygon (wei, 10^-18 POL), sui (mist, 10^-9 SUI) or hyperliquid (wei, 10^-8 HYPE)",
});
const currency = z
  .string()
  .regex(/^[A-Z]{3,5}$/, { message: "Must be a currency code such as USD" })
  .default("USD")
  .meta({ description: "The price series the value column uses (default USD)" });

export const StatementCsvQuery = z.object({ month, chain, currency });
export const StatementQuery = StatementCsvQuery.extend({
  page: z.coerce.number().int().min(1).default(1),
  per_page: z.coerce.number().int().min(1).max(100).default(10),
});
export type StatementQuery = z.output<typeof StatementQuery>;
export type StatementCsvQuery = z.output<typeof StatementCsvQuery>;

const Base = z
  .string()
  .regex(/^-?\d+$/)
  .meta({ description: "Base units of the chain (base_unit), exact" });
const Tokens = z
  .string()
  .regex(/^-?\d+(\.\d+)?$/)
  .meta({ description: "Whole tokens, exact decimal" });
const Decimal = z.string().regex(/^-?\d+(\.\d+)?$/);

export const StatementRowBody = z.object({
  date: z.iso.date(),
  account: z.string().meta({
    description:
      "Validator pubkey (ethereum), stake account (solana) or delegator address (polygon, sui, hyperliquid)",
  }),
  earned: Base,
  earned_tokens: Tokens,
  withdrawn: Base.meta({ description: "What left the stake to its owner that day, base units" }),
  withdrawn_tokens: Tokens,
  cl_reward: Base.nullable().meta({ description: "Ethereum: consensus-layer part of earned; else null" }),
  priority_fees: Base.nullable(),
  mev_reward: Base.nullable(),
  end_of_day_balance: Base.nullable().meta({
    description: "Ethereum: balance after the last indexed epoch that started that day; else null",
  }),
  price: Decimal.nullable().meta({ description: "The operator's price of one token that day; null: none" }),
  value: Decimal.nullable().meta({
    description: "earned_tokens × price, exact; null where there is no price",
  }),
});

export const StatementResponse = z.object({
  month: z.string(),
  chain: z.string(),
  token: z.string(),
  base_unit: z.string(),
  decimals: z.number().int(),
  currency: z.string(),
  closed: z.boolean().meta({ description: "True once no row of the month can change any more" }),
  totals: z.object({
    earned: Base,
    earned_tokens: Tokens,
    withdrawn: Base,
    withdrawn_tokens: Tokens,
    cl_reward: Base.nullable(),
    priority_fees: Base.nullable(),
    mev_reward: Base.nullable(),
  }),
  results: z.array(StatementRowBody),
  page: z.number().int(),
  per_page: z.number().int(),
  total: z.number().int(),
  pages: z.number().int(),
});
