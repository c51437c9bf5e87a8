import type { Hex } from "viem";
import { CONSOLIDATION_REQUEST_CONTRACT, consolidationRequestTx } from "../../chains/el-requests.ts";
import type { StakingAuth } from "../../http/api-key-auth.ts";
import {
  assertActive,
  assertExitable,
  assertNoPendingWithdrawals,
  type ExitChecks,
  type ExitContext,
  type ExitDeps,
  type Owned,
  refuse,
} from "./exit-checks.ts";

/** A switch to compounding: an active 0x01 validator. */
function assertSwitchable(pubkey: string, s: Owned["chain"]) {
  const v = assertActive(pubkey, s);
  if (!v.validator.withdrawal_credentials.startsWith("0x01"))
    throw refuse("ALREADY_COMPOUNDING", pubkey, "already has 0x02 credentials", "requests.sourcePubKey");
}

/** A consolidation: an exitable source with no queued partials into an active 0x02 target. */
function assertConsolidatable(
  r: { sourcePubKey: string; targetPubKey: string },
  chain: { source: Owned["chain"]; target: Owned["chain"] },
  ctx: ExitContext,
) {
  const v = assertExitable(r.sourcePubKey, chain.source, ctx);
  assertNoPendingWithdrawals(r.sourcePubKey, v, ctx);
  const t = assertActive(r.targetPubKey, chain.target, "(target) ");
  if (!t.validator.withdrawal_credentials.startsWith("0x02"))
    throw refuse(
      "TARGET_NOT_COMPOUNDING",
      r.targetPubKey,
      "a consolidation target needs 0x02 credentials; switch it first",
      "requests.targetPubKey",
    );
}

/**
 * EIP-7251 requests: source = target switches a 0x01 validator to compounding (SWITCH); otherwise the
 * source consolidates into a 0x02 target of the same organisation (CONSOLIDATE). Unsigned transactions for
 * the source's withdrawal address.
 */
export function createConsolidations(deps: ExitDeps, checks: ExitChecks) {
  return async function consolidations(
    auth: StakingAuth,
    requests: { sourcePubKey: string; targetPubKey: string }[],
  ) {
    const pubkeys = [...new Set(requests.flatMap((r) => [r.sourcePubKey, r.targetPubKey]))];
    const validators = await checks.owned(auth, pubkeys);
    const ctx = await checks.chainContext();
    const items = requests.map((r) => {
      const source = validators.get(r.sourcePubKey) as Owned;
      const switching = r.sourcePubKey === r.targetPubKey;
      if (switching) assertSwitchable(r.sourcePubKey, source.chain);
      else {
        const target = validators.get(r.targetPubKey)?.chain;
        assertConsolidatable(r, { source: source.chain, target }, ctx);
      }
      return { source, switching, target: r.targetPubKey, index: Number(source.chain?.index) };
    });
    const fee = await deps.execution.requestFee(CONSOLIDATION_REQUEST_CONTRACT as Hex);
    return {
      results: items.map(({ source, switching, target, index }) => ({
        sourceValidatorAddress: source.row.pubkey,
        targetValidatorAddress: target,
        sourceValidatorIndex: index,
        type: switching ? ("SWITCH" as const) : ("CONSOLIDATE" as const),
        ...consolidationRequestTx({
          from: checks.requestSender(source.row),
          source: source.row.pubkey,
          target,
          feeWei: fee,
        }),
      })),
    };
  };
}
