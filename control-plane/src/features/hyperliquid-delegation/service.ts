import { DECIMALS, parseUnits } from "@stake/db/units";
import type { z } from "zod";
import { AppError, parseOrThrow } from "../../errors.ts";
import { assertInScope, type StakingAuth } from "../../http/api-key-auth.ts";
import {
  actionDigest,
  buildCDeposit,
  buildCWithdraw,
  buildTokenDelegate,
  CHAIN_PARAMS,
  encodeUnsigned,
  type HyperliquidNetwork,
  recoverSigner,
  type StakingAction,
} from "./builder.ts";
import type { HyperliquidClient, HyperliquidInfo } from "./client.ts";
import type { HyperliquidRepo } from "./repo.ts";
import { type OperationRequest, SignedTransaction } from "./schemas.ts";

export const SCOPE_CHAIN = "hyperliquid";
export type Operation = "delegate" | "undelegate" | "withdraw" | "transfer";

type HistoryEntry = z.output<typeof HyperliquidInfo.delegatorHistory>[number];

/** Decimal HYPE string from the info API → the spec's number (display only; money math stays in wei). */
const num = (s: string | undefined) => (s === undefined ? 0 : Number(s));
/** Decimal HYPE string → wei, exactly (history matching compares money, so no floats); undefined if malformed. */
const weiOf = (s: string | undefined): bigint | undefined => {
  if (s === undefined) return undefined;
  try {
    return parseUnits(s, DECIMALS.hype);
  } catch {
    return undefined;
  }
};

export function createHyperliquidService(deps: {
  client: HyperliquidClient;
  repo: HyperliquidRepo;
  network: HyperliquidNetwork;
  validator: string;
  now?: () => number;
  /** Pauses between delegatorHistory look-ups after a relay (how briefly we wait for the L1 hash). */
  hashLookup?: { attempts: number; delayMs: number };
}) {
  const { client, repo, validator } = deps;
  const chain = CHAIN_PARAMS[deps.network];
  const now = deps.now ?? Date.now;
  const lookup = deps.hashLookup ?? { attempts: 5, delayMs: 100 };

  async function prepare(op: Operation, input: OperationRequest, auth: StakingAuth) {
    assertInScope(auth, SCOPE_CHAIN, input.delegatorAddress, "delegator");
    const nonce = await repo.nextNonce(input.delegatorAddress, now());
    const { wei } = input.amount;
    const tx =
      op === "withdraw"
        ? buildCWithdraw({ chain, wei, nonce })
        : op === "transfer"
          ? buildCDeposit({ chain, wei, nonce })
          : buildTokenDelegate({ chain, validator, wei, isUndelegate: op === "undelegate", nonce });
    return {
      amount: input.amount.text,
      unsignedTransactionBase64: encodeUnsigned(tx),
      createdAt: new Date(now()).toISOString(),
    };
  }

  /**
   * Status per delegation: Locked while Hyperliquid's 1-day lock runs, else Active. Hyperliquid undelegates
   * instantly, so no delegation is ever Undelegating; the nearest thing, the 7-day staking → spot queue,
   * shows as `pendingWithdrawal`.
   */
  async function balance(address: string, auth: StakingAuth) {
    assertInScope(auth, SCOPE_CHAIN, address, "delegator");
    const [spot, summary, delegations] = await Promise.all([
      client.info({
        type: "spotClearinghouseState",
        user: address,
      }),
      client.info({
        type: "delegatorSummary",
        user: address,
      }),
      client.info({
        type: "delegations",
        user: address,
      }),
    ]);
    const t = now();
    return {
      delegatorAddress: address,
      spotBalance: num(spot.balances?.find((b) => b.coin === "HYPE")?.total),
      stakingBalance: num(summary.undelegated),
      delegatedBalance: num(summary.delegated),
      pendingWithdrawal: num(summary.totalPendingWithdrawal),
      delegations: delegations.map((d) => ({
        validator: d.validator,
        amount: num(d.amount),
        lockedUntil: d.lockedUntilTimestamp,
        status: d.lockedUntilTimestamp > t ? "Locked" : "Active",
      })),
      createdAt: new Date(t).toISOString(),
    };
  }

  function decode(signedTransaction: string): SignedTransaction {
    let json: unknown;
    try {
      const text = Buffer.from(signedTransaction, "base64").toString("utf8");
      json = JSON.parse(text);
    } catch {
      throw new AppError("INVALID_SIGNED_TRANSACTION", "signedTransaction is not base64-encoded JSON");
    }
    try {
      return parseOrThrow(SignedTransaction, json, "signedTransaction");
    } catch (err) {
      const e = err as AppError;
      throw new AppError("INVALID_SIGNED_TRANSACTION", e.message, e.details ? { details: e.details } : {});
    }
  }

  /** Matches the history entry our action produced: same kind, amount, validator and a time near the relay. */
  function matches(entry: HistoryEntry, action: StakingAction, since: number): boolean {
    if (entry.time < since - 60_000) return false;
    const amount = BigInt(action.wei);
    const d = entry.delta;
    if (action.type !== "tokenDelegate") {
      if (action.type === "cDeposit") return weiOf(d.cDeposit?.amount) === amount;
      return d.withdrawal?.phase === "initiated" && weiOf(d.withdrawal.amount) === amount;
    }
    const del = d.delegate;
    return (
      del?.validator?.toLowerCase() === action.validator &&
      del.isUndelegate === action.isUndelegate &&
      weiOf(del.amount) === amount
    );
  }

  async function findHash(signer: string, action: StakingAction, since: number, seen: Set<string>) {
    for (let i = 0; i < lookup.attempts; i++) {
      if (i > 0) await new Promise((r) => setTimeout(r, lookup.delayMs));
      const history = await client.info({ type: "delegatorHistory", user: signer }).catch(() => []);
      // Oldest match first; a hash claimed by a concurrent identical broadcast is not reported twice.
      const candidates = history.filter((e) => !seen.has(e.hash) && matches(e, action, since)).reverse();
      for (const e of candidates) if (await repo.claimHash(e.hash)) return e.hash;
    }
    return null;
  }

  async function broadcast(signedTransaction: string, auth: StakingAuth) {
    const tx = decode(signedTransaction);
    const { action } = tx;
    if (tx.nonce !== action.nonce) {
      throw new AppError("INVALID_SIGNED_TRANSACTION", "nonce must equal action.nonce");
    }
    if (action.hyperliquidChain !== chain.hyperliquidChain) {
      throw new AppError(
        "WRONG_NETWORK",
        `Action is for Hyperliquid ${action.hyperliquidChain}; this deployment serves ${chain.hyperliquidChain}`,
      );
    }
    if (action.type === "tokenDelegate" && action.validator !== validator) {
      throw new AppError(
        "INVALID_SIGNED_TRANSACTION",
        `Validator must be the operator's validator ${validator}`,
      );
    }
    let signer: string;
    try {
      signer = recoverSigner(actionDigest(action), tx.signature);
    } catch (err) {
      throw new AppError("INVALID_SIGNATURE", "Signature does not recover to an address", { cause: err });
    }
    try {
      assertInScope(auth, SCOPE_CHAIN, signer, "delegator");
    } catch (err) {
      // A changed action recovers a different address, so this check also catches tampering.
      throw new AppError(
        "ADDRESS_NOT_IN_SCOPE",
        `Signer ${signer} recovered from the signature is not in the organisation's hyperliquid scope ` +
          "(a wrong key, or an action changed after signing)",
        { cause: err },
      );
    }
    if (!(await repo.claimRelay(signer, action.nonce))) {
      throw new AppError("NONCE_ALREADY_USED", `Nonce ${action.nonce} was already broadcast for ${signer}`);
    }
    // Entries that exist before the relay cannot be ours.
    const before = await client.info({ type: "delegatorHistory", user: signer }).catch((err) => {
      return repo.releaseRelay(signer, action.nonce).then(() => Promise.reject(err));
    });
    const since = now();
    let relayed: Awaited<ReturnType<HyperliquidClient["exchange"]>>;
    try {
      relayed = await client.exchange({
        action,
        nonce: tx.nonce,
        signature: tx.signature,
        vaultAddress: null,
      });
    } catch (err) {
      await repo.releaseRelay(signer, action.nonce);
      throw err;
    }
    if (!relayed.ok) {
      await repo.releaseRelay(signer, action.nonce);
      throw new AppError("EXCHANGE_REJECTED", `Hyperliquid refused the action: ${relayed.message}`);
    }
    const hash = await findHash(signer, action, since, new Set(before.map((e) => e.hash)));
    return {
      transactionHash: hash,
      status: hash ? "success" : "pending: accepted by Hyperliquid, transaction hash not visible yet",
      createdAt: new Date(now()).toISOString(),
    };
  }

  return { prepare, balance, broadcast };
}

export type HyperliquidService = ReturnType<typeof createHyperliquidService>;
