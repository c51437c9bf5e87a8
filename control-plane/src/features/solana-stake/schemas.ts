import { z } from "zod";
import { AppError } from "../../errors.ts";

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
export const BalanceRequest = z.object({
  walletPubKey: pubkey.optional(),
  stakeAccountPubKeys: z.array(pubkey).min(1).max(1000).optional(),
});

const unix = z.coerce.number().int().nonnegative().max(32_503_680_000);
/** Repeated (`?stake_accounts=a&stake_accounts=b`) or comma-separated (`?stake_accounts=a,b`), as in the sample. */
const accountList = z
  .union([z.string(), z.array(z.string())])
  .transform((v) =>
    (Array.isArray(v) ? v : [v])
      .flatMap((s) => s.split(","))
      .map((s) => s.trim())
      .filter(Boolean),
  )
  .pipe(z.array(z.string()).min(1).max(1000));

export const RewardsQuery = z.object({
  start_time: unix,
  end_time: unix,
  period: z.enum(["epoch", "weekly", "monthly"]).default("epoch"),
  wallet_address: z.string().trim().min(1).optional(),
  stake_accounts: accountList.optional(),
});

export const HistoryQuery = z.object({
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
});
