import type { Hex } from "viem";
import { WITHDRAWAL_REQUEST_CONTRACT, withdrawalRequestTx } from "../../chains/el-requests.ts";
import type { StakingAuth } from "../../http/api-key-auth.ts";
import type { ApiValidator } from "../beacon-data/client.ts";
import {
  assertExitable,
  assertNoPendingWithdrawals,
  type ExitChecks,
  type ExitContext,
  type ExitDeps,
  type Owned,
  refuse,
} from "./exit-checks.ts";

const MIN_ACTIVATION_GWEI = 32_000_000_000n;

/** A partial withdrawal the chain would honour in full: 0x02 credentials, at least 32 ETH left. */
function assertPartialWithdrawable(pubkey: string, v: ApiValidator, amount: bigint, ctx: ExitContext) {
  if (!v.validator.withdrawal_credentials.startsWith("0x02")) {
    throw refuse(
      "VALIDATOR_NOT_COMPOUNDING",
      pubkey,
      "partial withdrawals need 0x02 credentials; switch the validator first",
    );
  }
  const available = BigInt(v.balance) - MIN_ACTIVATION_GWEI - (ctx.pending.get(v.index) ?? 0n);
  if (amount > available) {
    throw refuse(
      "PARTIAL_WITHDRAWAL_TOO_LARGE",
      pubkey,
      `at most ${available > 0n ? available : 0n} Gwei can be withdrawn: the balance may not go below 32 ETH`,
      "requests.amount",
    );
  }
}

/**
 * EIP-7002 requests: a full exit (no amount) of any execution-credentials validator, or a partial
 * withdrawal of a 0x02 one that leaves at least 32 ETH (the chain caps it at balance − 32 ETH − pending, so
 * asking for more is refused rather than silently cut). Unsigned transactions for the withdrawal address.
 */
export function createWithdrawalRequests(deps: ExitDeps, checks: ExitChecks) {
  return async function withdrawalRequests(
    auth: StakingAuth,
    requests: { pubKey: string; amount?: bigint | undefined }[],
  ) {
    const validators = await checks.owned(
      auth,
      requests.map((r) => r.pubKey),
    );
    const ctx = await checks.chainContext();
    const items = requests.map((r) => {
      const o = validators.get(r.pubKey) as Owned;
      const v = assertExitable(r.pubKey, o.chain, ctx);
      if (r.amount) assertPartialWithdrawable(r.pubKey, v, r.amount, ctx);
      else assertNoPendingWithdrawals(r.pubKey, v, ctx);
      return { o, v, full: !r.amount, amount: r.amount ?? 0n };
    });
    const fee = await deps.execution.requestFee(WITHDRAWAL_REQUEST_CONTRACT as Hex);
    return {
      results: items.map(({ o, v, full, amount }) => ({
        validatorAddress: o.row.pubkey,
        validatorIndex: Number(v.index),
        type: full ? ("FULL_WITHDRAWAL" as const) : ("PARTIAL_EXIT" as const),
        amount: amount.toString(),
        ...withdrawalRequestTx({
          from: checks.requestSender(o.row),
          pubkey: o.row.pubkey,
          amountGwei: amount,
          feeWei: fee,
        }),
      })),
    };
  };
}
