import { DECIMALS, formatUnits, parseUnits, UnitsError } from "@stake/db/units";
import { AppError } from "../../errors.ts";
import { assertInScope, type StakingAuth } from "../../http/api-key-auth.ts";
import type { HyperliquidClient } from "./client.ts";
import { SCOPE_CHAIN } from "./service.ts";

const DAY_MS = 86_400_000;

/** HYPE decimal from the info API → wei (10^-8 HYPE); more than 8 decimals is a malformed answer. */
function weiOf(text: string, what: string): bigint {
  try {
    return parseUnits(text, DECIMALS.hype);
  } catch (err) {
    if (!(err instanceof UnitsError)) throw err;
    throw new AppError("UPSTREAM_UNAVAILABLE", `Hyperliquid API answered a malformed ${what} amount`, {
      cause: err,
    });
  }
}

const hype = (wei: bigint) => ({ amount: formatUnits(wei, DECIMALS.hype), amountWei: wei.toString() });
const utcDate = (ms: number) => new Date(Math.floor(ms / DAY_MS) * DAY_MS).toISOString().slice(0, 10);

/** One distribution of `delegatorRewards`, exact: HYPE and wei as decimal strings. */
export interface HyperliquidReward {
  time: number;
  date: string;
  source: "delegation" | "commission";
  amount: string;
  amountWei: string;
}

/**
 * A delegator's rewards and history from the Hyperliquid info API (`delegatorRewards`,
 * `delegatorHistory`): Hyperliquid is the ledger, nothing is indexed here (docs/spec.md, Delegation,
 * our additions). Also the statements' port for Hyperliquid delegations (docs/architecture.md §12).
 */
export function createHyperliquidRewards(deps: { client: HyperliquidClient }) {
  const { client } = deps;

  /** Every distribution to `address`, oldest first, optionally within [from, to] UTC days (YYYY-MM-DD). */
  async function distributions(
    address: string,
    range: { from?: string | undefined; to?: string | undefined } = {},
  ) {
    const rows = await client.info({ type: "delegatorRewards", user: address });
    return rows
      .map(
        (r): HyperliquidReward => ({
          time: r.time,
          date: utcDate(r.time),
          source: r.source,
          ...hype(weiOf(r.totalAmount, "reward")),
        }),
      )
      .filter((r) => (!range.from || r.date >= range.from) && (!range.to || r.date <= range.to))
      .sort((a, b) => a.time - b.time || a.source.localeCompare(b.source));
  }

  async function rewards(
    address: string,
    range: { from?: string | undefined; to?: string | undefined },
    auth: StakingAuth,
  ) {
    assertInScope(auth, SCOPE_CHAIN, address, "delegator");
    const list = await distributions(address, range);
    const total = list.reduce((s, r) => s + BigInt(r.amountWei), 0n);
    const t = hype(total);
    return { delegatorAddress: address, totalRewards: t.amount, totalRewardsWei: t.amountWei, rewards: list };
  }

  async function history(address: string, auth: StakingAuth) {
    assertInScope(auth, SCOPE_CHAIN, address, "delegator");
    return historyOf(address);
  }

  /** `delegatorHistory`, newest first as Hyperliquid lists it, each delta flattened to one kind. */
  async function historyOf(address: string) {
    const entries = await client.info({ type: "delegatorHistory", user: address });
    return entries.flatMap((e) => {
      const [kind, d] = Object.entries(e.delta)[0] ?? [];
      if (!kind || !d) return [];
      const type =
        kind === "delegate"
          ? d.isUndelegate
            ? "undelegate"
            : "delegate"
          : kind === "cDeposit"
            ? "deposit"
            : kind === "withdrawal"
              ? d.phase === "finalized"
                ? "withdrawal_finalized"
                : "withdrawal_initiated"
              : kind;
      return [
        {
          time: e.time,
          hash: e.hash,
          type,
          validator: d.validator?.toLowerCase() ?? null,
          ...hype(weiOf(d.amount ?? "0", "history")),
        },
      ];
    });
  }

  return { distributions, historyOf, rewards, history };
}

export type HyperliquidRewards = ReturnType<typeof createHyperliquidRewards>;
