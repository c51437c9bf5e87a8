import { issueApiKey } from "@stake/db/api-key";
import { coinsToBaseUnits, formatCoins } from "@stake/db/coin";
import { newId } from "@stake/db/ids";
import type { Redis } from "@stake/db/redis/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import { spendWindows } from "@stake/db/redis/scripts";
import { formatUnits, parseUnits } from "@stake/db/units";
import type { Jwt } from "../../auth/jwt.ts";
import type { PasswordHasher } from "../../auth/password.ts";
import { AppError } from "../../errors.ts";
import type { AbuseLimits } from "../../http/abuse-limits.ts";
import { recordAudit } from "../../platform/audit.ts";
import { readBalance } from "../gateway-settlement/funding.ts";
import { capInCoins, capInUnits, readKeyCounters } from "./keys-service.ts";
import type { GatewayAccountRepo } from "./repo.ts";
import type {
  CreateKeyRequest,
  LoginRequest,
  LowBalanceThresholdRequest,
  PageQuery,
  SignupRequest,
  SpendCapsRequest,
  UsageQuery,
} from "./schemas.ts";
import { presentUsage } from "./usage.ts";

/** Decimals of `providers.cost_in_usd`. */
const USD_SCALE = 10;
/** Decimals of `coin_rates.usd_per_coin`. */
const RATE_SCALE = 12;
/** An exact numeric column as read back ("0.0010000000"): the same value, trailing zeros dropped. */
const exact = (v: string, scale: number) => formatUnits(parseUnits(v, scale), scale);

export function createGatewayAccountService(deps: {
  repo: GatewayAccountRepo;
  passwords: PasswordHasher;
  limits: AbuseLimits;
  jwt: Jwt;
  redis: Redis;
  keys: RedisKeys;
  /** Has the worker drain the party's reservation log into Postgres, and waits for it (settlement's port). */
  drainParty: (partyId: string) => Promise<void>;
  /** Active gateway keys a user may hold. */
  maxActiveKeys: number;
}) {
  const { repo, passwords, limits, jwt, redis, keys } = deps;
  /** Gateway processes drop their key/party caches on this message (effective within a second). */
  const invalidate = () => redis.publish(keys.gateway.invalidations, "account");

  async function partyOf(userId: string) {
    const party = await repo.findPartyOfUser(userId);
    if (!party) throw new AppError("PARTY_REQUIRED", "User does not have a party");
    return party;
  }

  /**
   * A valid token may name a user that no longer exists (deleted; or a `sub` forged with a leaked secret):
   * what writes rows for the user answers 401 then, not the foreign key's 500.
   */
  async function existingUser(userId: string) {
    if (!(await repo.userExists(userId))) throw new AppError("INVALID_TOKEN", "Invalid token");
  }

  return {
    async signup(input: SignupRequest) {
      const user = await repo.insertUser({
        id: newId("gatewayUser"),
        email: input.email,
        passwordHash: await passwords.hash(input.password),
      });
      if (!user) throw new AppError("GATEWAY_USER_EXISTS", "User already exists");
      return { userId: user.id, email: user.email, createdAt: user.createdAt.toISOString() };
    },

    /** Password attempts are slowed per (client address, e-mail) pair, as for Basic auth. */
    async login(input: LoginRequest, ip: string) {
      const user = await repo.findUserByEmail(input.email);
      const ok = await limits.guardPasswordCheck(ip, `gateway:${input.email}`, () =>
        user ? passwords.verify(user.passwordHash, input.password) : passwords.verifyDummy(input.password),
      );
      if (!user || !ok) throw new AppError("UNAUTHORIZED", "Unauthorized");
      return { token: await jwt.sign(user.id), tokenType: "Bearer", expiresIn: jwt.ttlSeconds };
    },

    async createParty(userId: string) {
      await existingUser(userId);
      const party = await repo.insertParty({ id: newId("party"), userId });
      if (!party) throw new AppError("PARTY_EXISTS", "Party already exists");
      await invalidate();
      return { partyId: party.id, createdAt: party.createdAt.toISOString() };
    },

    async party(userId: string) {
      const party = await repo.findPartyOfUser(userId);
      return { party: party && { partyId: party.id, createdAt: party.createdAt.toISOString() } };
    },

    /** Each key with its budget, and its last use from the gateway's counters (no Postgres write per request). */
    async keys(userId: string) {
      const [rows, party] = await Promise.all([repo.listKeys(userId), repo.findPartyOfUser(userId)]);
      const ids = rows.map((k) => k.id);
      const counters = party ? await readKeyCounters(redis, keys, party.id, ids) : new Map();
      const iso = (d: Date | null) => d?.toISOString() ?? null;
      const list = rows.map((k) => {
        const used = counters.get(k.id)?.lastUsed;
        return {
          id: k.id,
          start: k.start,
          label: k.label,
          active: k.active,
          expiresAt: iso(k.expiresAt),
          createdAt: k.createdAt.toISOString(),
          deactivatedAt: iso(k.deactivatedAt),
          limits: k.limits,
          spendCaps: { daily: capInCoins(k.dailySpendCap), monthly: capInCoins(k.monthlySpendCap) },
          lastUsedAt: used ? new Date(used).toISOString() : null,
          rotatedAt: iso(k.rotatedAt),
          previousKeyExpiresAt: iso(k.previousHashExpiresAt),
        };
      });
      return { keys: list };
    },

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

    async createKey(userId: string, input: CreateKeyRequest = undefined) {
      await existingUser(userId);
      // Checked before the insert: concurrent creations may pass one each, a handful at most.
      const active = (await repo.listKeys(userId)).filter((k) => k.active).length;
      if (active >= deps.maxActiveKeys) {
        throw new AppError(
          "GATEWAY_KEY_LIMIT_REACHED",
          `You already have ${deps.maxActiveKeys} active API keys; deactivate one first`,
        );
      }
      const issued = issueApiKey("gateway");
      const key = await repo.transaction(async (r, tx) => {
        const key = await r.insertKey({
          id: newId("gatewayKey"),
          userId,
          hash: issued.hash,
          start: issued.start,
          label: input?.label ?? null,
          expiresAt: input?.expiresAt ? new Date(input.expiresAt) : null,
          limits: input?.limits ?? [],
          dailySpendCap: capInUnits(input?.spendCaps?.daily ?? null),
          monthlySpendCap: capInUnits(input?.spendCaps?.monthly ?? null),
        });
        await recordAudit(tx, {
          actor: { kind: "user", id: userId },
          action: "gateway_key.create",
          target: key!.id,
          after: {
            start: key!.start,
            label: key!.label,
            expiresAt: key!.expiresAt,
            limits: key!.limits,
            dailySpendCap: key!.dailySpendCap,
            monthlySpendCap: key!.monthlySpendCap,
          },
        });
        return key;
      });
      return {
        id: key?.id,
        key: issued.key,
        start: issued.start,
        label: key?.label ?? null,
        expiresAt: key?.expiresAt?.toISOString() ?? null,
        createdAt: key?.createdAt.toISOString(),
        limits: key?.limits ?? [],
        spendCaps: {
          daily: capInCoins(key?.dailySpendCap ?? null),
          monthly: capInCoins(key?.monthlySpendCap ?? null),
        },
      };
    },

    async deactivateKey(userId: string, keyId: string) {
      const key = await repo.deactivateKey(userId, keyId);
      if (!key) throw new AppError("GATEWAY_KEY_NOT_FOUND", "API key not found");
      await invalidate();
      return { id: key.id, active: false, deactivatedAt: key.deactivatedAt?.toISOString() };
    },

    /** The party's spend caps and what they count so far (the gateway's counters in Redis). */
    async spendCaps(userId: string) {
      const party = await partyOf(userId);
      const w = spendWindows(Date.now());
      const [day, month] = await redis.mget(
        keys.gateway.spendDay(party.id, w.day),
        keys.gateway.spendMonth(party.id, w.month),
      );
      return {
        daily: capInCoins(party.dailySpendCap),
        monthly: capInCoins(party.monthlySpendCap),
        spentToday: formatCoins(BigInt(day ?? "0")),
        spentThisMonth: formatCoins(BigInt(month ?? "0")),
      };
    },

    /** Sets both caps (null: none); every gateway drops its cached copy within the pub/sub delivery time. */
    async setSpendCaps(userId: string, input: SpendCapsRequest) {
      const party = await partyOf(userId);
      await repo.setSpendCaps(party.id, {
        daily: capInUnits(input.daily),
        monthly: capInUnits(input.monthly),
      });
      await invalidate();
      return this.spendCaps(userId);
    },

    /** Coin amounts as exact decimal strings (docs/architecture.md §5: 10 decimals do not survive a JS number). */
    async balance(userId: string) {
      const party = await partyOf(userId);
      const { balance, reserved } = await readBalance(redis, keys, party.id);
      return { balance: formatCoins(balance), reservedBalance: formatCoins(reserved) };
    },

    async lowBalanceThreshold(userId: string) {
      const { lowBalanceThreshold: t } = await partyOf(userId);
      return { threshold: t === null ? null : formatCoins(BigInt(t)) };
    },

    async setLowBalanceThreshold(userId: string, input: LowBalanceThresholdRequest) {
      const party = await partyOf(userId);
      const units = input.threshold === null ? null : coinsToBaseUnits(input.threshold);
      await repo.setLowBalanceThreshold(party.id, units === null ? null : units.toString());
      return { threshold: units === null ? null : formatCoins(units) };
    },

    /**
     * Newest first, from Postgres, the record of every reservation however old. The worker drains the
     * party's event stream first (asked here, waited for a moment), so the page includes requests made a
     * moment ago rather than lagging the settlement interval; the API never writes settlement itself.
     */
    async reservations(userId: string, q: PageQuery) {
      const party = await partyOf(userId);
      await deps.drainParty(party.id);
      const { rows, total } = await repo.listReservations(party.id, q.page, q.pageSize);
      const reservations = rows.map((r) => ({
        id: r.id,
        idempotencyKey: r.idempotencyKey,
        partyId: party.id,
        providerKey: r.providerKey,
        costInUSD: Number(r.costInUsd),
        cost: formatCoins(BigInt(r.cost)),
        status: r.status,
        createdAt: r.createdAt.toISOString(),
        updatedAt: r.updatedAt.toISOString(),
        keyId: r.keyId,
        path: r.path,
        httpStatus: r.httpStatus,
        upstreamMs: r.upstreamMs,
      }));
      return { reservations, page: q.page, pageSize: q.pageSize, total };
    },

    /** The party's funding credits, newest first: what the operator credited, with its reference. */
    async funding(userId: string, q: PageQuery) {
      const party = await partyOf(userId);
      const { rows, total } = await repo.listCredits(party.id, q.page, q.pageSize);
      const credits = rows.map((e) => ({
        id: e.id,
        amount: formatCoins(BigInt(e.amount)),
        reference: e.externalRef,
        createdAt: e.createdAt.toISOString(),
        appliedAt: e.appliedAt?.toISOString() ?? null,
      }));
      return { credits, page: q.page, pageSize: q.pageSize, total };
    },

    /**
     * The party's daily usage roll-up (settlement writes it as reservations close). The party's stream is
     * drained first, as for the reservations, so requests failed a moment ago are counted; paid ones
     * appear once the worker has charged them (each pass, SETTLEMENT_INTERVAL_MS).
     */
    async usage(userId: string, q: UsageQuery) {
      const party = await partyOf(userId);
      await deps.drainParty(party.id);
      return presentUsage(q, await repo.listUsage(party.id, q.from, q.to));
    },
  };
}

export type GatewayAccountService = ReturnType<typeof createGatewayAccountService>;
