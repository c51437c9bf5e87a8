import { coinsToBaseUnits, formatCoins } from "@stake/db/coin";
import { spendWindows } from "@stake/db/redis/scripts";
import { formatUnits, parseUnits } from "@stake/db/units";
import { readBalance } from "../gateway-settlement/funding.ts";
import type { AccountContext, GatewayAccountDeps } from "./context.ts";
import { capInCoins, capInUnits } from "./keys-service.ts";
import type { LowBalanceThresholdRequest, SpendCapsRequest } from "./schemas.ts";

/** Decimals of `providers.cost_in_usd`. */
const USD_SCALE = 10;
/** Decimals of `coin_rates.usd_per_coin`. */
const RATE_SCALE = 12;
/** An exact numeric column as read back ("0.0010000000"): the same value, trailing zeros dropped. */
const exact = (v: string, scale: number) => formatUnits(parseUnits(v, scale), scale);

/** What a request costs: the providers that can be called, at their prices, and the coin rate. */
export function createGatewayCatalogService(deps: Pick<GatewayAccountDeps, "repo">) {
  const { repo } = deps;
  return {
    async providers() {
      const rows = await repo.listCallableProviders();
      return {
        providers: rows.map((p) => ({
          key: p.key,
          costInUSD: exact(p.costInUsd, USD_SCALE),
          status: p.status,
        })),
      };
    },

    async coinRate() {
      const rate = await repo.currentCoinRate();
      return {
        rate: rate && { usdPerCoin: exact(rate.usdPerCoin, RATE_SCALE), since: rate.createdAt.toISOString() },
      };
    },
  };
}

/** What a party holds and may spend: its balance, its spend caps and its low-balance threshold. */
export function createGatewayPartyService(deps: GatewayAccountDeps, ctx: AccountContext) {
  const { repo, redis, keys } = deps;
  return {
    /** The party's spend caps and what they count so far (the gateway's counters in Redis). */
    async spendCaps(userId: string) {
      const party = await ctx.partyOf(userId);
      const w = spendWindows(Date.now());
      // A counter of an earlier day or month counts nothing now (reserve.lua).
      const [d, dv, m, mv] = await redis.hmget(keys.gateway.account(party.id), "d", "dv", "m", "mv");
      const day = d === w.day ? dv : null;
      const month = m === w.month ? mv : null;
      return {
        daily: capInCoins(party.dailySpendCap),
        monthly: capInCoins(party.monthlySpendCap),
        spentToday: formatCoins(BigInt(day ?? "0")),
        spentThisMonth: formatCoins(BigInt(month ?? "0")),
      };
    },

    /** Sets both caps (null: none); every gateway drops its cached copy within the pub/sub delivery time. */
    async setSpendCaps(userId: string, input: SpendCapsRequest) {
      const party = await ctx.partyOf(userId);
      await repo.setSpendCaps(party.id, {
        daily: capInUnits(input.daily),
        monthly: capInUnits(input.monthly),
      });
      await ctx.invalidate(userId);
      return this.spendCaps(userId);
    },

    /** Coin amounts as exact decimal strings (docs/architecture.md §5: 10 decimals do not survive a JS number). */
    async balance(userId: string) {
      const party = await ctx.partyOf(userId);
      const { balance, reserved } = await readBalance(redis, keys, party.id);
      return { balance: formatCoins(balance), reservedBalance: formatCoins(reserved) };
    },

    async lowBalanceThreshold(userId: string) {
      const { lowBalanceThreshold: t } = await ctx.partyOf(userId);
      return { threshold: t === null ? null : formatCoins(BigInt(t)) };
    },

    async setLowBalanceThreshold(userId: string, input: LowBalanceThresholdRequest) {
      const party = await ctx.partyOf(userId);
      const units = input.threshold === null ? null : coinsToBaseUnits(input.threshold);
      await repo.setLowBalanceThreshold(party.id, units === null ? null : units.toString());
      return { threshold: units === null ? null : formatCoins(units) };
    },
  };
}
