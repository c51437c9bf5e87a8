import { createHash } from "node:crypto";
import { createServer, type IncomingMessage } from "node:http";
import type { AddressInfo } from "node:net";
import { buildSchema, GraphQLError, graphql } from "graphql";
import {
  type ChainEvent,
  type Pool,
  type Rate,
  STAKED_SUI_TYPE,
  type StakedSui,
  type SuiChain,
  SYSTEM,
  type Validator,
} from "./chain.ts";
import { SUI_GRAPHQL_SUBSET } from "./schema.ts";

export interface SuiDevnet {
  /** The GraphQL endpoint (what SUI_RPC_URL points at). */
  url: string;
  chain: SuiChain;
  /** Operation names served, in order (lets tests prove what was asked and what was cached). */
  operations: string[];
  close(): Promise<void>;
}

/** Sui's GraphQL service caps a page at 50 and a multi-get at 50 keys (`serviceConfig`). */
const MAX_PAGE = 50;

const schema = buildSchema(SUI_GRAPHQL_SUBSET);
const iso = (ms: number | undefined) => (ms === undefined ? null : new Date(ms).toISOString());

/** `0x3::m::T` and `0x000…03::m::T` name the same type. */
function normaliseType(type: string): string {
  const m = /^0x([0-9a-fA-F]{1,64})(::.*)?$/.exec(type.trim());
  return m ? `0x${m[1]!.toLowerCase().padStart(64, "0")}${m[2] ?? ""}` : type;
}

function normaliseAddress(address: unknown): string {
  if (typeof address !== "string" || !/^0x[0-9a-fA-F]{1,64}$/.test(address)) {
    throw new GraphQLError(`Invalid SuiAddress: ${String(address)}`);
  }
  return `0x${address.slice(2).toLowerCase().padStart(64, "0")}`;
}

interface PageArgs {
  first?: number | null;
  after?: string | null;
  last?: number | null;
  before?: string | null;
}

/** Forward pagination over a list, with opaque cursors made of the item's position. */
function paginate<T>(items: T[], args: PageArgs, map: (t: T) => unknown) {
  if (args.last != null || args.before != null) throw new GraphQLError("backward paging is not simulated");
  const first = args.first ?? 20;
  if (first > MAX_PAGE) throw new GraphQLError(`Page size is too large: ${first} > ${MAX_PAGE}`);
  const start = args.after ? Number(Buffer.from(args.after, "base64").toString()) + 1 : 0;
  const page = items.slice(start, start + first);
  const cursor = (i: number) => Buffer.from(String(i)).toString("base64");
  return {
    nodes: page.map(map),
    pageInfo: {
      hasNextPage: start + first < items.length,
      hasPreviousPage: start > 0,
      startCursor: page.length ? cursor(start) : null,
      endCursor: page.length ? cursor(start + page.length - 1) : null,
    },
  };
}

const moveValue = (type: string, json: unknown) => ({ __typename: "MoveValue", json, type: { repr: type } });

function validatorJson(v: Validator) {
  const p = v.pool;
  return moveValue(`${SYSTEM}::validator::Validator`, {
    metadata: { sui_address: v.address, name: v.name },
    staking_pool: {
      id: p.id,
      activation_epoch: String(p.activationEpoch),
      deactivation_epoch: null,
      sui_balance: String(p.suiBalance),
      rewards_pool: String(p.rewardsPool),
      pool_token_balance: String(p.poolTokenBalance),
      exchange_rates: { id: p.exchangeRatesId, size: String(p.rates.size) },
      pending_stake: String(p.pendingStake),
      pending_total_sui_withdraw: String(p.pendingTotalSuiWithdraw),
      pending_pool_token_withdraw: String(p.pendingPoolTokenWithdraw),
    },
    commission_rate: String(v.commissionBps),
  });
}

const stakeObject = (s: StakedSui) => ({
  __typename: "MoveObject",
  address: s.id,
  contents: moveValue(STAKED_SUI_TYPE, {
    id: s.id,
    pool_id: s.poolId,
    stake_activation_epoch: String(s.activationEpoch),
    principal: String(s.principal),
  }),
});

function rateField(pool: Pool, epoch: number, rate: Rate) {
  return {
    address: `0x${(BigInt(pool.exchangeRatesId) ^ BigInt(epoch + 1)).toString(16).padStart(64, "0")}`,
    name: moveValue("u64", String(epoch)),
    value: moveValue(`${SYSTEM}::staking_pool::PoolTokenExchangeRate`, {
      sui_amount: String(rate.suiAmount),
      pool_token_amount: String(rate.poolTokenAmount),
    }),
  };
}

/** Reads a `u64` dynamic-field key: BCS (8 bytes little-endian, base64) or the literal `630u64`/`630`. */
function u64Key(key: { type?: string | null; bcs?: string | null; literal?: string | null }): number | null {
  if (key.type !== "u64") return null;
  if (key.bcs) {
    const bytes = Buffer.from(key.bcs, "base64");
    return bytes.length === 8 ? Number(bytes.readBigUInt64LE()) : null;
  }
  const m = key.literal ? /^(\d+)(u64)?$/.exec(key.literal) : null;
  return m ? Number(m[1]) : null;
}

function createRoot(chain: SuiChain) {
  const epoch = (id: number) =>
    id > chain.epoch
      ? null
      : {
          epochId: id,
          startTimestamp: iso(chain.epochStartMs[id]),
          endTimestamp: iso(id < chain.epoch ? chain.epochStartMs[id + 1] : undefined),
          // Past epochs answer the validator set as it is now: the area only reads pool ids from it.
          validatorSet: {
            activeValidators: (args: PageArgs) =>
              paginate(chain.validators, args, (v) => ({ contents: validatorJson(v) })),
          },
        };
  const address = (addr: string) => ({
    address: addr,
    objects: (args: PageArgs & { filter?: { type?: string | null; owner?: string | null } }) => {
      const type = args.filter?.type ? normaliseType(args.filter.type) : undefined;
      if (type !== undefined && type !== STAKED_SUI_TYPE) return paginate([], args, stakeObject);
      const owned = [...chain.objects.values()].filter((o) => o.owner === addr);
      return paginate(owned, args, stakeObject);
    },
    multiGetDynamicFields: (args: { keys: { type?: string; bcs?: string; literal?: string }[] }) => {
      if (args.keys.length > MAX_PAGE) throw new GraphQLError(`Too many keys: ${args.keys.length}`);
      const pool = chain.validators.find((v) => v.pool.exchangeRatesId === addr)?.pool;
      return args.keys.map((k) => {
        const e = u64Key(k);
        const rate = pool && e !== null ? pool.rates.get(e) : undefined;
        return pool && rate && e !== null ? rateField(pool, e, rate) : null;
      });
    },
  });
  const event = (e: ChainEvent) => ({
    contents: moveValue(e.type, e.json),
    sender: address(e.sender),
    sequenceNumber: e.sequenceNumber,
    timestamp: iso(e.timestampMs),
    transaction: { digest: e.txDigest },
  });
  return {
    // A real node's is the first 4 bytes of its genesis checkpoint's digest: a chain started anew (a
    // re-genesis) has another, so this one follows the devnet's genesis time.
    chainIdentifier: () =>
      createHash("sha256").update(`sui-devnet-genesis:${chain.epochStartMs[0]}`).digest("hex").slice(0, 8),
    epoch: (args: { epochId?: number | null }) => epoch(args.epochId ?? chain.epoch),
    multiGetEpochs: (args: { keys: number[] }) => {
      if (args.keys.length > MAX_PAGE) throw new GraphQLError(`Too many keys: ${args.keys.length}`);
      return args.keys.map(epoch);
    },
    address: (args: { address: string }) => address(normaliseAddress(args.address)),
    events: (args: PageArgs & { filter?: { type?: string | null; sender?: string | null } }) => {
      const type = args.filter?.type ? normaliseType(args.filter.type) : undefined;
      const sender = args.filter?.sender ? normaliseAddress(args.filter.sender) : undefined;
      const matching = chain.events.filter(
        (e) =>
          (type === undefined || e.type === type || e.type.startsWith(`${type}::`)) &&
          (sender === undefined || e.sender === sender),
      );
      return paginate(matching, args, event);
    },
  };
}

async function readBody(req: IncomingMessage): Promise<string> {
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  return Buffer.concat(chunks).toString("utf8");
}

/**
 * Simulated Sui node: Sui's GraphQL RPC (POST, `{query, variables, operationName}`) on loopback, executed by
 * the `graphql` package over the schema subset above, with answers read from a simulated staking system.
 */
export async function startSuiDevnet(opts: { chain: SuiChain; port?: number }): Promise<SuiDevnet> {
  const { chain } = opts;
  const root = createRoot(chain);
  const operations: string[] = [];
  const server = createServer(async (req, res) => {
    const send = (status: number, body: unknown) =>
      res.writeHead(status, { "content-type": "application/json" }).end(JSON.stringify(body));
    if (req.method !== "POST") return send(405, { errors: [{ message: "POST a GraphQL request" }] });
    let request: { query?: unknown; variables?: Record<string, unknown>; operationName?: string };
    try {
      request = JSON.parse(await readBody(req));
    } catch {
      return send(400, { errors: [{ message: "body is not JSON" }] });
    }
    if (typeof request.query !== "string") return send(400, { errors: [{ message: "no query" }] });
    const name =
      request.operationName ?? /(?:query|mutation)\s+(\w+)/.exec(request.query)?.[1] ?? "anonymous";
    operations.push(name);
    const result = await graphql({
      schema,
      source: request.query,
      rootValue: root,
      variableValues: request.variables ?? null,
      operationName: request.operationName ?? null,
    });
    send(200, result);
  });
  await new Promise<void>((resolve) => server.listen(opts.port ?? 0, "127.0.0.1", resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/graphql`,
    chain,
    operations,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}
