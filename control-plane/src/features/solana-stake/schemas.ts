import type { RequestHandler } from "express";
import { z } from "zod";
import { AppError } from "../../errors.ts";
import { endNotBefore, queryList } from "../../http/query.ts";

/**
 * The spec's tables say `validatorPubKey`, its samples `validatorPubkey`: both spellings are accepted (same
 * for wallet and stake account). Giving both spellings with different values is a 400.
 */
const ALIASES = {
  validatorPubKey: "validatorPubkey",
  walletPubKey: "walletPubkey",
  stakeAccountPubKey: "stakeAccountPubkey",
  stakeAccountPubKeys: "stakeAccountPubkeys",
  nonceAccountPubKey: "nonceAccountPubkey",
} as const;

export function normaliseKeys(body: unknown): Record<string, unknown> {
  if (!body || typeof body !== "object" || Array.isArray(body)) return {};
  const out: Record<string, unknown> = { ...(body as Record<string, unknown>) };
  for (const [canonical, alias] of Object.entries(ALIASES)) {
    if (out[alias] === undefined) continue;
    if (out[canonical] !== undefined && JSON.stringify(out[canonical]) !== JSON.stringify(out[alias])) {
      throw new AppError("VALIDATION_ERROR", `${canonical} and ${alias} disagree`, {
        details: [{ field: canonical, message: `Conflicts with ${alias}` }],
      });
    }
    out[canonical] = out[alias];
    delete out[alias];
  }
  return out;
}

const pubkey = z.string().trim().min(1);
/** Lamports: a non-negative safe integer, or a string of digits (for values above 2^53). */
const lamports = z
  .union([z.number().int().nonnegative().max(Number.MAX_SAFE_INTEGER), z.string().regex(/^\d{1,20}$/)])
  .transform((v) => BigInt(v))
  .refine((v) => v <= 0xffff_ffff_ffff_ffffn, "Must fit in u64");

export const StakeRequest = z.object({
  validatorPubKey: pubkey,
  walletPubKey: pubkey,
  amount: lamports.refine((v) => v > 0n, "Must be greater than 0"),
  nonceAccountPubKey: pubkey.optional(),
});
export const DeactivateRequest = z.object({
  validatorPubKey: pubkey,
  walletPubKey: pubkey,
  stakeAccountPubKey: pubkey,
  nonceAccountPubKey: pubkey.optional(),
});
export const WithdrawRequest = DeactivateRequest.extend({
  amount: lamports.refine((v) => v > 0n, "Must be greater than 0"),
});
/**
 * Stake accounts one request may name (balance and rewards; our addition, docs/spec.md Limits): each costs
 * RPC calls, and the per-key request limit only bounds requests.
 */
export const MAX_STAKE_ACCOUNTS = 100;
export const BalanceRequest = z.object({
  walletPubKey: pubkey.optional(),
  stakeAccountPubKeys: z.array(pubkey).min(1).max(MAX_STAKE_ACCOUNTS).optional(),
});

const unix = z.coerce.number().int().nonnegative().max(32_503_680_000);
/** Repeated (`?stake_accounts=a&stake_accounts=b`) or comma-separated (`?stake_accounts=a,b`), as in the sample. */
const accountList = queryList(z.string(), MAX_STAKE_ACCOUNTS);

export const RewardsQuery = z
  .object({
    start_time: unix,
    end_time: unix,
    period: z.enum(["epoch", "weekly", "monthly"]).default("epoch"),
    wallet_address: z.string().trim().min(1).optional(),
    stake_accounts: accountList.optional(),
  })
  .superRefine(endNotBefore("start_time", "end_time"));

export const HistoryQuery = z
  .object({
    start_time: unix,
    end_time: unix,
    wallet_address: z.string().trim().min(1).optional(),
    stake_accounts: accountList.optional(),
    page: z.coerce.number().int().min(1).default(1),
    page_size: z.coerce.number().int().min(1).max(100).default(50),
    excluded_event_type: z
      .union([z.string(), z.array(z.string())])
      .transform((v) => (Array.isArray(v) ? v : [v]).flatMap((s) => s.split(",")).filter(Boolean))
      .optional(),
  })
  .superRefine(endNotBefore("start_time", "end_time"));
export type BalanceRequest = z.output<typeof BalanceRequest>;
export type RewardsQuery = z.output<typeof RewardsQuery>;
export type HistoryQuery = z.output<typeof HistoryQuery>;

/** Rewrites the samples' key spelling into the tables' before the body is parsed (see ALIASES). */
export const normaliseBody: RequestHandler = (req, _res, next) => {
  if (req.body !== undefined) req.body = normaliseKeys(req.body);
  next();
};

const Sol = z.string().regex(/^\d+(\.\d{1,9})?$/);
const Lamports = z.string().regex(/^\d+$/);
const Transaction = {
  validatorPubkey: z.string(),
  walletPubkey: z.string(),
  stakeAccountPubkey: z.string(),
  unsignedTransactionBase64: z.string(),
  blockhash: z.string(),
  lastValidBlockHeight: z.number().int().nullable(),
  fee: z.number().int(),
  nonceAccountPubkey: z.string().optional(),
};
export const StakeResponse = z.object({
  success: z.literal(true),
  data: z.object({
    ...Transaction,
    stakeAmount: z.number().int(),
    rentExemptAmount: z.number().int(),
    /** The spec's field table names the rent `rentAmount`, its sample `rentExemptAmount`: both are given. */
    rentAmount: z.number().int(),
    totalAmount: z.number().int(),
    seed: z.string(),
  }),
});
export const DeactivateResponse = z.object({ success: z.literal(true), data: z.object(Transaction) });
export const WithdrawResponse = z.object({
  success: z.literal(true),
  data: z.object({ ...Transaction, amount: z.number().int() }),
});
const StakeAccount = z.object({
  pubkey: z.string(),
  status: z.enum(["active", "inactive"]),
  activation_state: z.enum(["activating", "active", "deactivating", "inactive"]),
  balance: z.object({ total_sol: Sol, active_sol: Sol, inactive_sol: Sol, rewards_sol: Sol }),
  lamports: z.object({ total: Lamports, active: Lamports, delegated: Lamports }),
  authorities: z.object({
    stake_authority: z.string().nullable(),
    withdraw_authority: z.string().nullable(),
  }),
  epochs: z.object({
    activation_epoch: z.number().int().nullable(),
    deactivation_epoch: z.number().int().nullable(),
    current_epoch: z.number().int(),
  }),
  voter: z.string().nullable(),
  created_at: z.string().nullable(),
  updated_at: z.string().nullable(),
});
export const BalanceResponse = z.object({
  success: z.literal(true),
  data: z.object({
    walletPubkey: z.string().optional(),
    balance: z.number().int().optional(),
    stakeAccounts: z.array(StakeAccount),
  }),
});
export const RewardsResponse = z.object({
  status: z.literal("success"),
  data: z.object({
    delegator_address: z.string(),
    period: z.enum(["epoch", "weekly", "monthly"]),
    total_rewards: z.object({ sol: Sol }),
    rewards: z.array(
      z.object({
        epoch: z.number().int(),
        time_start: z.iso.datetime(),
        time_end: z.iso.datetime(),
        rewards_earned: z.object({ sol: Sol }),
        reward_types: z.object({
          inflation_rewards: z.object({ sol: Sol }),
          mev_rewards: z.object({ sol: Sol }),
        }),
        starting_balance_sol: Sol,
        ending_balance_sol: Sol,
      }),
    ),
  }),
  metadata: z.object({ query_time: z.iso.datetime(), epochs_included: z.number().int() }),
});
export const HistoryResponse = z.object({
  status: z.literal("success"),
  data: z.object({
    address: z.string(),
    time_range: z.object({ start: z.iso.datetime(), end: z.iso.datetime() }),
    summary: z.object({
      total_rewards_earned: z.object({ sol: Sol }),
      starting_balance: z.object({ sol: Sol }),
      ending_balance: z.object({ sol: Sol }),
      epochs_active: z.number().int(),
      status_changes: z.number().int(),
    }),
    history: z.array(
      z.looseObject({ event_type: z.string(), epoch: z.number().int().nullable().optional() }),
    ),
    validators: z.array(
      z.object({
        vote_account: z.string(),
        identity: z.string().nullable(),
        epochs_delegated: z.number().int(),
        total_rewards_from_validator: z.object({ sol: Sol }),
      }),
    ),
  }),
  pagination: z.object({
    page: z.number().int(),
    page_size: z.number().int(),
    total_events: z.number().int(),
    has_more: z.boolean(),
  }),
  metadata: z.object({ query_time: z.iso.datetime() }),
});
