import { randomBytes } from "node:crypto";
import { issueApiKey } from "@stake/db/api-key";
import type { Db } from "@stake/db/client";
import { coinsToBaseUnits } from "@stake/db/coin";
import { newId } from "@stake/db/ids";
import type { Redis } from "@stake/db/redis/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import { creditParty, readBalance } from "../gateway-settlement/funding.ts";
import { createGatewayOperatorRepo, type ProviderStatus } from "./operator-repo.ts";
import { createGatewayAccountRepo } from "./repo.ts";

export type { ProviderRow, ProviderStatus } from "./operator-repo.ts";

/**
 * What the operator does to gateway state: providers, the coin rate, funding, key deactivation, and a
 * funded account in one call (the demo seed, the benchmark and the tests' fixtures). Every change that a
 * gateway caches is followed by the invalidation message, so each gateway drops its key, provider and rate
 * caches within a second.
 */
export function createGatewayOperatorService(deps: { db: Db; redis: Redis; keys: RedisKeys }) {
  const { db, redis, keys } = deps;
  const repo = createGatewayOperatorRepo(db);
  const accounts = createGatewayAccountRepo(db);
  const invalidate = () => redis.publish(keys.gateway.invalidations, "operator");
  const changed = async <T>(value: T) => {
    if (value) await invalidate();
    return value;
  };

  return {
    invalidate,
    /** The new provider, or null when the key is taken. */
    addProvider: async (p: { key: string; originUrl: string; costInUsd: string; status?: ProviderStatus }) =>
      changed(await repo.insertProvider({ ...p, status: p.status ?? "active" })),
    /** The changed provider, or null when there is none with that key. */
    updateProvider: async (
      key: string,
      set: Partial<{ originUrl: string; costInUsd: string; status: ProviderStatus }>,
    ) => changed(await repo.updateProvider(key, set)),
    listProviders: () => repo.listProviders(),
    setCoinRate: async (usdPerCoin: string) => changed(await repo.insertCoinRate(usdPerCoin)),
    currentCoinRate: () => repo.currentCoinRate(),

    /** Credits a party once per `ref` (Postgres ledger, then Redis); null when there is no such party. */
    async fundParty(input: { partyId: string; amount: bigint; ref: string }) {
      if (!(await repo.findParty(input.partyId))) return null;
      return creditParty(db, redis, keys, input);
    },

    listUsers: () => repo.listUsers(),
    /** Every party with its user and hot balance (Redis, as the gateway reserves from it). */
    async listParties() {
      const users = (await repo.listUsers()).filter((u) => u.partyId !== null);
      return Promise.all(
        users.map(async (u) => ({
          partyId: u.partyId!,
          userId: u.id,
          email: u.email,
          ...(await readBalance(redis, keys, u.partyId!)),
        })),
      );
    },
    /** Gateway keys of the user with that id or e-mail (null when there is none), or of every user. */
    async listKeys(user?: string) {
      if (user === undefined) return repo.listKeys();
      const found = user.includes("@") ? await accounts.findUserByEmail(user.toLowerCase()) : { id: user };
      return found ? repo.listKeys(found.id) : null;
    },
    /** The deactivated key, or null when there is none with that id. */
    deactivateKey: async (keyId: string) => changed(await repo.deactivateKey(keyId)),

    /**
     * A gateway user (found by e-mail, else created) with one fresh key, the user's earlier keys
     * deactivated; unless `party: false`, its party (found or created), funded with `coins` once per
     * `ref`. Without an e-mail a new user is made; without a password hash (computed only for a new user)
     * it cannot log in.
     */
    async openAccount(input: {
      email?: string;
      passwordHash?: () => Promise<string>;
      party?: boolean;
      coins?: string;
      ref?: string;
    }) {
      const userId = newId("gatewayUser");
      const user =
        (input.email ? await accounts.findUserByEmail(input.email) : null) ??
        (await accounts.insertUser({
          id: userId,
          email: input.email ?? `${userId.toLowerCase()}@example.test`,
          passwordHash: input.passwordHash ? await input.passwordHash() : "-",
        }))!;
      await repo.deactivateKeysOfUser(user.id);
      const issued = issueApiKey("gateway");
      const key = await accounts.insertKey({
        id: newId("gatewayKey"),
        userId: user.id,
        hash: issued.hash,
        start: issued.start,
      });
      await invalidate();
      const account = { userId: user.id, email: user.email, keyId: key!.id, apiKey: issued.key };
      if (input.party === false) return { ...account, partyId: null, balance: 0n };
      const party =
        (await accounts.findPartyOfUser(user.id)) ??
        (await accounts.insertParty({ id: newId("party"), userId: user.id }))!;
      const balance = input.coins
        ? (
            await creditParty(db, redis, keys, {
              partyId: party.id,
              amount: coinsToBaseUnits(input.coins),
              ref: input.ref ?? `fund-${randomBytes(6).toString("hex")}`,
            })
          ).balance
        : (await readBalance(redis, keys, party.id)).balance;
      return { ...account, partyId: party.id, balance };
    },
  };
}

export type GatewayOperatorService = ReturnType<typeof createGatewayOperatorService>;
