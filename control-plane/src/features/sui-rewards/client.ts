import { SuiGraphQLClient } from "@mysten/sui/graphql";
import { z } from "zod";
import { nodeAnswer, nodeBigint, nodeNumber, U64_MAX } from "../../chains/node-values.ts";
import { SUI_ADDRESS } from "../../chains/sui.ts";
import { AppError } from "../../errors.ts";
import { createUpstream, upstreamFailure } from "../../http/upstream.ts";

/**
 * The Sui node as the rewards area sees it, over Sui's GraphQL RPC (JSON-RPC is switched off,
 * docs/chains/polygon-sui.md §0) through `@mysten/sui`'s SuiGraphQLClient on the one outbound client. Only standard queries of Sui's
 * public schema: `tests/sui/schema.test.ts` validates every document below against the schema
 * `@mysten/sui` ships, so pointing SUI_RPC_URL at a real GraphQL service needs no code change.
 */

/** Sui's GraphQL service answers at most 50 nodes per page and 50 keys per multi-get. */
const PAGE = 50;

export const SUI_QUERIES = {
  /** The chain's identifier (the first 4 bytes of its genesis checkpoint's digest). */
  chainIdentifier: /* GraphQL */ `
    query suiRewardsChainIdentifier { chainIdentifier }`,
  /** The current epoch and the active validators' Move structs (pool id, rate table, activation). */
  currentEpoch: /* GraphQL */ `
    query suiRewardsCurrentEpoch($first: Int, $after: String) {
      epoch {
        epochId
        startTimestamp
        validatorSet {
          activeValidators(first: $first, after: $after) {
            pageInfo { hasNextPage endCursor }
            nodes { contents { json } }
          }
        }
      }
    }`,
  epochStarts: /* GraphQL */ `
    query suiRewardsEpochStarts($keys: [UInt53!]!) {
      multiGetEpochs(keys: $keys) { epochId startTimestamp }
    }`,
  /** `exchange_rates[epoch]` entries of one pool: dynamic fields of its Table, keyed by u64. */
  rates: /* GraphQL */ `
    query suiRewardsRates($table: SuiAddress!, $keys: [DynamicFieldName!]!) {
      address(address: $table) {
        multiGetDynamicFields(keys: $keys) {
          name { json }
          value { ... on MoveValue { json } }
        }
      }
    }`,
  ownedStakes: /* GraphQL */ `
    query suiRewardsOwnedStakes($owner: SuiAddress!, $type: String!, $first: Int, $after: String) {
      address(address: $owner) {
        objects(filter: { type: $type }, first: $first, after: $after) {
          pageInfo { hasNextPage endCursor }
          nodes { address contents { json } }
        }
      }
    }`,
  unstakeEvents: /* GraphQL */ `
    query suiRewardsUnstakeEvents($sender: SuiAddress!, $type: String!, $first: Int, $after: String) {
      events(filter: { sender: $sender, type: $type }, first: $first, after: $after) {
        pageInfo { hasNextPage endCursor }
        nodes { sequenceNumber transaction { digest } contents { json } }
      }
    }`,
} as const;

export const STAKED_SUI_TYPE = "0x3::staking_pool::StakedSui";
export const UNSTAKE_EVENT_TYPE = "0x3::validator::UnstakingRequestEvent";

export interface SuiPoolInfo {
  validatorAddress: string;
  poolId: string;
  exchangeRatesId: string;
  activationEpoch: number;
}

export interface SuiRate {
  suiAmount: bigint;
  poolTokenAmount: bigint;
}

export interface SuiOwnedStake {
  objectId: string;
  poolId: string;
  principal: bigint;
  activationEpoch: number;
}

export interface SuiUnstakeEvent {
  /** Transaction digest and event index: unique per event. */
  key: string;
  stakerAddress: string;
  poolId: string;
  principal: bigint;
  activationEpoch: number;
  unstakingEpoch: number;
  reward: bigint;
}

export interface SuiNode {
  chainIdentifier(): Promise<string>;
  currentEpoch(): Promise<{ epoch: number; startMs: bigint; pools: SuiPoolInfo[] }>;
  /** Start time (ms) of each given epoch that has started. */
  epochStarts(epochs: number[]): Promise<Map<number, bigint>>;
  /** The rate entries of one pool at the given epochs; an epoch without one (safe mode) is absent. */
  rates(exchangeRatesId: string, epochs: number[]): Promise<Map<number, SuiRate>>;
  ownedStakes(owner: string): Promise<SuiOwnedStake[]>;
  /** Unstake events sent by `owner` after `cursor`, and the cursor after the last one. */
  unstakeEvents(
    owner: string,
    cursor: string | null,
  ): Promise<{ events: SuiUnstakeEvent[]; cursor: string | null }>;
}

type Json = Record<string, unknown>;
interface Page<T> {
  pageInfo: { hasNextPage: boolean; endCursor: string | null };
  nodes: T[];
}

/**
 * The Move values the area reads, checked like every node answer (`chains/node-values.ts`): amounts are
 * u64 (kept in `numeric(20)`), epochs numbers, ids 32-byte addresses, times ISO dates.
 */
const u64 = () => nodeBigint(U64_MAX);
const epoch = () => nodeNumber();
const suiId = () =>
  z
    .string()
    .regex(SUI_ADDRESS, "must be a Sui address")
    .transform((a) => a.toLowerCase());
const isoMs = () =>
  z
    .string()
    .refine((t) => !Number.isNaN(Date.parse(t)) && Date.parse(t) >= 0, "must be an ISO time after 1970")
    .transform((t) => BigInt(Date.parse(t)));
const Epoch = z.object({ epochId: epoch(), startTimestamp: isoMs() });
const PoolJson = z.object({
  metadata: z.object({ sui_address: suiId() }),
  staking_pool: z.object({
    id: suiId(),
    exchange_rates: z.object({ id: suiId() }),
    activation_epoch: epoch().nullish(),
  }),
});
const RateJson = z.object({ sui_amount: u64(), pool_token_amount: u64() });
const StakeJson = z.object({ pool_id: suiId(), principal: u64(), stake_activation_epoch: epoch() });
const UnstakeJson = z.object({
  staker_address: suiId(),
  pool_id: suiId(),
  principal_amount: u64(),
  stake_activation_epoch: epoch(),
  unstaking_epoch: epoch(),
  reward_amount: u64(),
});
const answer = <S extends z.ZodType>(schema: S, value: unknown, what: string) =>
  nodeAnswer(schema, value, { node: "Sui node", what });

/** A u64 dynamic-field key: its type and BCS bytes (8 bytes little-endian), as Sui's schema takes it. */
function u64Key(epoch: number) {
  const bcs = Buffer.alloc(8);
  bcs.writeBigUInt64LE(BigInt(epoch));
  return { type: "u64", bcs: bcs.toString("base64") };
}

function chunks<T>(items: T[], size: number): T[][] {
  const out: T[][] = [];
  for (let i = 0; i < items.length; i += size) out.push(items.slice(i, i + size));
  return out;
}

export function createSuiNode(
  opts: { rpcUrl: string; timeoutMs: number; maxBytes: number; maxPages: number },
  network: "testnet" | "mainnet",
): SuiNode {
  const upstream = createUpstream({ name: "Sui node", timeoutMs: opts.timeoutMs, maxBytes: opts.maxBytes });
  const client = new SuiGraphQLClient({ url: opts.rpcUrl, fetch: upstream.fetch, network });

  async function query<T>(document: string, variables: Json): Promise<T> {
    let result: Awaited<ReturnType<typeof client.query<T>>>;
    try {
      result = await upstream.call(() => client.query<T>({ query: document, variables }));
    } catch (err) {
      if (err instanceof AppError) throw err;
      // A 4xx, or a body that is not JSON: the node did not answer the protocol.
      throw (
        upstreamFailure(upstream.name, opts.timeoutMs, err) ??
        new AppError("UPSTREAM_UNAVAILABLE", "Sui node did not answer the GraphQL request", { cause: err })
      );
    }
    if (result.errors?.length || !result.data) {
      throw new AppError("UPSTREAM_UNAVAILABLE", "Sui node answered a GraphQL error", {
        cause: new Error(JSON.stringify(result.errors ?? "no data")),
      });
    }
    return result.data;
  }

  /**
   * Follows `hasNextPage` for at most `opts.maxPages` pages, so no address makes one sync unbounded. A
   * `resumable` read (events after a stored cursor) stops there and the next pass goes on from the cursor;
   * any other read cannot be cut without being wrong, and fails.
   */
  async function pages<T>(
    fetchPage: (after: string | null) => Promise<Page<T> | null>,
    resumable = false,
  ): Promise<T[]> {
    const all: T[] = [];
    for (let after: string | null = null, n = 0; ; ) {
      if (n++ === opts.maxPages) {
        if (resumable) return all;
        throw new AppError("UPSTREAM_UNAVAILABLE", `Sui read needs more than ${opts.maxPages} pages`);
      }
      const page = await fetchPage(after);
      if (!page) return all;
      all.push(...page.nodes);
      if (!page.pageInfo.hasNextPage || !page.pageInfo.endCursor) return all;
      after = page.pageInfo.endCursor;
    }
  }

  return {
    async chainIdentifier() {
      const data = await query<{ chainIdentifier: unknown }>(SUI_QUERIES.chainIdentifier, {});
      return answer(
        z.string().regex(/^[0-9a-f]{1,64}$/i),
        data.chainIdentifier,
        "chain identifier",
      ).toLowerCase();
    },
    async currentEpoch() {
      let head: { epochId: unknown; startTimestamp: unknown } | undefined;
      const validators = await pages(async (after) => {
        const data = await query<{
          epoch: {
            epochId: unknown;
            startTimestamp: unknown;
            validatorSet: { activeValidators: Page<{ contents: { json: Json } | null }> | null } | null;
          } | null;
        }>(SUI_QUERIES.currentEpoch, { first: PAGE, after });
        if (!data.epoch) throw new AppError("UPSTREAM_UNAVAILABLE", "Sui node answered no current epoch");
        head ??= data.epoch;
        return data.epoch.validatorSet?.activeValidators ?? null;
      });
      const pools = validators.map(({ contents }) => {
        const { metadata, staking_pool: pool } = answer(PoolJson, contents?.json, "validator");
        return {
          validatorAddress: metadata.sui_address,
          poolId: pool.id,
          exchangeRatesId: pool.exchange_rates.id,
          activationEpoch: pool.activation_epoch ?? 0,
        };
      });
      const current = answer(Epoch, head, "current epoch");
      return { epoch: current.epochId, startMs: current.startTimestamp, pools };
    },

    async epochStarts(epochs) {
      const out = new Map<number, bigint>();
      for (const keys of chunks(epochs, PAGE)) {
        const data = await query<{
          multiGetEpochs: ({ epochId: unknown; startTimestamp: unknown } | null)[];
        }>(SUI_QUERIES.epochStarts, { keys });
        for (const e of data.multiGetEpochs) {
          if (!e?.startTimestamp) continue;
          const { epochId, startTimestamp } = answer(Epoch, e, "epoch");
          out.set(epochId, startTimestamp);
        }
      }
      return out;
    },

    async rates(exchangeRatesId, epochs) {
      const out = new Map<number, SuiRate>();
      for (const batch of chunks(epochs, PAGE)) {
        const data = await query<{
          address: {
            multiGetDynamicFields: ({ name: { json: unknown }; value: { json?: Json } | null } | null)[];
          } | null;
        }>(SUI_QUERIES.rates, { table: exchangeRatesId, keys: batch.map(u64Key) });
        for (const field of data.address?.multiGetDynamicFields ?? []) {
          if (!field?.value?.json) continue;
          const rate = answer(RateJson, field.value.json, "exchange rate");
          out.set(answer(epoch(), field.name.json, "rate epoch"), {
            suiAmount: rate.sui_amount,
            poolTokenAmount: rate.pool_token_amount,
          });
        }
      }
      return out;
    },

    async ownedStakes(owner) {
      const nodes = await pages(async (after) => {
        const data = await query<{
          address: { objects: Page<{ address: string; contents: { json: Json } | null }> | null } | null;
        }>(SUI_QUERIES.ownedStakes, { owner, type: STAKED_SUI_TYPE, first: PAGE, after });
        return data.address?.objects ?? null;
      });
      return nodes.map((n) => {
        const stake = answer(StakeJson, n.contents?.json, "staked SUI object");
        return {
          objectId: answer(suiId(), n.address, "object id"),
          poolId: stake.pool_id,
          principal: stake.principal,
          activationEpoch: stake.stake_activation_epoch,
        };
      });
    },

    async unstakeEvents(owner, cursor) {
      let last = cursor;
      const nodes = await pages(async (after) => {
        const data = await query<{
          events: Page<{
            sequenceNumber: unknown;
            transaction: { digest: string } | null;
            contents: { json: Json } | null;
          }> | null;
        }>(SUI_QUERIES.unstakeEvents, {
          sender: owner,
          type: UNSTAKE_EVENT_TYPE,
          first: PAGE,
          after: after ?? cursor,
        });
        if (data.events?.pageInfo.endCursor) last = data.events.pageInfo.endCursor;
        return data.events;
      }, true);
      const events = nodes.map((n) => {
        const e = answer(UnstakeJson, n.contents?.json, "unstake event");
        return {
          key: `${n.transaction?.digest ?? "?"}:${String(n.sequenceNumber)}`,
          stakerAddress: e.staker_address,
          poolId: e.pool_id,
          principal: e.principal_amount,
          activationEpoch: e.stake_activation_epoch,
          unstakingEpoch: e.unstaking_epoch,
          reward: e.reward_amount,
        };
      });
      return { events, cursor: last };
    },
  };
}
