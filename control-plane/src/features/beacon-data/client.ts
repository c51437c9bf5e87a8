import { createPublicClient, type Hex, http, type Log } from "viem";
import { z } from "zod";
import {
  decimalInt,
  decimalUint,
  hexBytes,
  nodeAnswer,
  nodeNumber,
  U64_MAX,
} from "../../chains/node-values.ts";
import { AppError } from "../../errors.ts";
import { createUpstream } from "../../http/upstream.ts";

/**
 * The standard Beacon API shapes the indexer reads (ethereum/beacon-APIs), as schemas every answer is
 * checked against: numbers are decimal strings, non-negative and within a `bigint` column
 * (`chains/node-values.ts`), kept as strings; byte strings are hex of their length. A node answering
 * anything else is refused (502), never written.
 */
const uint = () => decimalUint();
export const ApiValidator = z.object({
  index: uint(),
  balance: uint(),
  status: z.string().min(1),
  validator: z.object({
    pubkey: hexBytes(48),
    withdrawal_credentials: hexBytes(32),
    effective_balance: uint(),
    /** Always present in the standard's answer; optional here so an older fixture reads as unslashed. */
    slashed: z.boolean().optional(),
    /**
     * Always present in the standard's answer (FAR_FUTURE_EPOCH is 2^64 − 1); read by the exit checks and
     * for the epochs of the beacon statuses (status-epochs.ts).
     */
    activation_eligibility_epoch: decimalUint(U64_MAX).optional(),
    activation_epoch: decimalUint(U64_MAX).optional(),
    exit_epoch: decimalUint(U64_MAX).optional(),
    withdrawable_epoch: decimalUint(U64_MAX).optional(),
  }),
});
export type ApiValidator = z.output<typeof ApiValidator>;
/** An Electra pending partial withdrawal (EIP-7002), paid by the sweep from `withdrawable_epoch`. */
export const ApiPendingPartialWithdrawal = z.object({
  validator_index: uint(),
  amount: uint(),
  withdrawable_epoch: uint(),
});
export type ApiPendingPartialWithdrawal = z.output<typeof ApiPendingPartialWithdrawal>;
/** An EIP-7251 consolidation waiting for its source to become withdrawable (validator indices). */
export const ApiPendingConsolidation = z.object({ source_index: uint(), target_index: uint() });
export type ApiPendingConsolidation = z.output<typeof ApiPendingConsolidation>;
export const ApiPendingDeposit = z.object({ pubkey: hexBytes(48), amount: uint() });
export type ApiPendingDeposit = z.output<typeof ApiPendingDeposit>;
export const ApiBlock = z.object({
  message: z.object({
    slot: uint(),
    proposer_index: uint(),
    body: z.object({
      execution_payload: z
        .object({
          fee_recipient: hexBytes(20),
          block_number: uint(),
          block_hash: hexBytes(32),
          timestamp: uint(),
          withdrawals: z
            .array(
              z.object({
                index: uint(),
                validator_index: uint(),
                address: hexBytes(20),
                amount: uint(),
              }),
            )
            .optional(),
        })
        .optional(),
      execution_requests: z
        .object({ deposits: z.array(z.object({ pubkey: hexBytes(48), amount: uint() })).optional() })
        .optional(),
      /** Deposits bridged from the deposit contract's log (applied at once before Electra, queued since). */
      deposits: z.array(z.object({ data: z.object({ pubkey: hexBytes(48), amount: uint() }) })).optional(),
    }),
  }),
});
export type ApiBlock = z.output<typeof ApiBlock>;
/**
 * The standard rewards endpoints' answers (only the parts the indexer keeps: `ideal_rewards` and the block's
 * sub-totals are not read). Amounts are signed Gwei: a missed duty's penalty is negative.
 */
export const ApiAttestationsRewards = z.object({
  total_rewards: z.array(
    z.object({
      validator_index: uint(),
      head: decimalInt(),
      target: decimalInt(),
      source: decimalInt(),
      inactivity: decimalInt(),
    }),
  ),
});
export const ApiBlockRewards = z.object({ proposer_index: uint(), total: decimalInt() });
export const ApiSyncCommitteeRewards = z.array(z.object({ validator_index: uint(), reward: decimalInt() }));
/**
 * Statuses with which a node says it does not serve a rewards answer: 404 (no such endpoint, or the state it
 * needs is pruned or not there yet), 400 (an epoch or block it will not compute), 405 and 501 (not
 * implemented). The indexer then goes without the breakdown; any other failure is the node failing.
 */
const UNSERVED = new Set([400, 404, 405, 501]);
const Header = z.object({
  root: hexBytes(32),
  header: z.object({ message: z.object({ slot: nodeNumber() }) }),
});
const Genesis = z.object({ genesis_time: nodeNumber() });
/** The chain's identity (docs/architecture.md §13, "Chain identity"): two chains never share all three. */
const GenesisIdentity = z.object({
  genesis_time: decimalUint(),
  genesis_validators_root: hexBytes(32),
  genesis_fork_version: hexBytes(4),
});
const positive = () => nodeNumber().refine((n) => n > 0, "must be positive");
/** A fork epoch: 2^64 − 1 (FAR_FUTURE_EPOCH, not scheduled) reads as never. */
const forkEpoch = () => decimalUint(U64_MAX).transform((s) => (BigInt(s) > 2n ** 53n ? Infinity : Number(s)));
const Spec = z.object({
  SECONDS_PER_SLOT: positive(),
  SLOTS_PER_EPOCH: positive(),
  ELECTRA_FORK_EPOCH: forkEpoch().optional(),
  SHARD_COMMITTEE_PERIOD: nodeNumber().optional(),
});
/** The Electra churn constants the network figures need (docs/beacon-data.md, "Network figures"). */
const ChurnSpec = z.object({
  MAX_SEED_LOOKAHEAD: nodeNumber(),
  MIN_VALIDATOR_WITHDRAWABILITY_DELAY: nodeNumber(),
  MIN_PER_EPOCH_CHURN_LIMIT_ELECTRA: decimalUint(),
  MAX_PER_EPOCH_ACTIVATION_EXIT_CHURN_LIMIT: decimalUint(),
  CHURN_LIMIT_QUOTIENT: positive(),
  EFFECTIVE_BALANCE_INCREMENT: decimalUint().refine((s) => BigInt(s) > 0n, "must be positive"),
});
export type ChurnSpec = z.output<typeof ChurnSpec>;
const FinalityCheckpoints = z.object({ finalized: z.object({ epoch: nodeNumber() }) });

export interface ChainSpec {
  genesisTime: number;
  secondsPerSlot: number;
  slotsPerEpoch: number;
  /**
   * First Electra epoch (`ELECTRA_FORK_EPOCH`; 0 when the node does not say). States before it have no
   * pending queues: a real node answers 400 for them, so they are not asked for.
   */
  electraForkEpoch: number;
}

/**
 * A node answer marked `execution_optimistic: true`: its execution payload is not verified yet (the node's
 * execution client is syncing), so the indexer does not write it (docs/beacon-data.md, "Real nodes").
 */
export class OptimisticAnswer extends Error {
  constructor(path: string) {
    super(`Beacon node answered ${path} optimistically (execution payload not verified yet)`);
  }
}

/** How a Beacon API read hands back an answer's `data` (null for 404), checked against its schema. */
type Read = <S extends z.ZodType>(path: string, data: S, body?: unknown) => Promise<z.output<S> | null>;

/**
 * Beacon API client over the one outbound client (timeouts → 504, unreachable/5xx/not JSON/past the byte
 * cap → 502). A 404 (missed slot, unknown state) is `null`; any other 4xx is the node refusing us, a 502; an
 * answer outside its schema is refused (`NodeAnswerRefused`, 502). `verified` is the same client for the
 * indexer's chain reads: an optimistic answer there throws `OptimisticAnswer`.
 */
export function createBeaconApi(opts: { url: string; timeoutMs: number; maxBytes: number }) {
  // The one Beacon API client of the control plane: the provisioning area reads through it too (add-stake).
  const upstream = createUpstream({ name: "Beacon node", ...opts });
  async function read<S extends z.ZodType>(
    path: string,
    data: S,
    body?: unknown,
  ): Promise<{ data: z.output<S>; optimistic: boolean } | null> {
    const init: RequestInit = body === undefined ? {} : { method: "POST", body: JSON.stringify(body) };
    const res = await upstream.json<unknown>(new URL(path, opts.url), init);
    if (res.status === 404) return null;
    if (res.status >= 400)
      throw new AppError("UPSTREAM_UNAVAILABLE", `Beacon node answered HTTP ${res.status} to ${path}`);
    return unwrap(path, data, res.body);
  }
  /** Every Beacon API answer wraps its value in `data`, beside `execution_optimistic`. */
  function unwrap<S extends z.ZodType>(path: string, data: S, body: unknown) {
    const answer = nodeAnswer(z.object({ data, execution_optimistic: z.boolean().optional() }), body, {
      node: upstream.name,
      what: `answer to ${path}`,
    }) as { data: z.output<S>; execution_optimistic?: boolean };
    return { data: answer.data, optimistic: answer.execution_optimistic === true };
  }
  /** A rewards read (verified): its data, or null when the node does not serve it (`UNSERVED`). */
  async function rewardsRead<S extends z.ZodType>(path: string, data: S, body?: unknown) {
    const init: RequestInit =
      body === undefined
        ? {}
        : { method: "POST", body: JSON.stringify(body), headers: { "content-type": "application/json" } };
    const res = await upstream.text(new URL(path, opts.url), init, UNSERVED);
    if (UNSERVED.has(res.status)) return null;
    if (res.status >= 400)
      throw new AppError("UPSTREAM_UNAVAILABLE", `Beacon node answered HTTP ${res.status} to ${path}`);
    let json: unknown;
    try {
      json = JSON.parse(res.text);
    } catch (err) {
      throw new AppError("UPSTREAM_UNAVAILABLE", `Beacon node answered ${path} without JSON`, { cause: err });
    }
    const answer = unwrap(path, data, json);
    if (answer.optimistic) throw new OptimisticAnswer(path);
    return answer.data;
  }
  const api = methods(async (path, data, body) => (await read(path, data, body))?.data ?? null);
  return {
    ...api,
    verified: {
      ...methods(async (path, data, body) => {
        const answer = await read(path, data, body);
        if (answer?.optimistic) throw new OptimisticAnswer(path);
        return answer?.data ?? null;
      }),
      /**
       * The standard rewards endpoints (POST with the validators' indices); null when the node does not serve
       * the answer (`UNSERVED`).
       */
      rewards: {
        attestations: (epoch: number, indices: number[]) =>
          rewardsRead(
            `/eth/v1/beacon/rewards/attestations/${epoch}`,
            ApiAttestationsRewards,
            indices.map(String),
          ),
        block: (slot: number) => rewardsRead(`/eth/v1/beacon/rewards/blocks/${slot}`, ApiBlockRewards),
        syncCommittee: (slot: number, indices: number[]) =>
          rewardsRead(
            `/eth/v1/beacon/rewards/sync_committee/${slot}`,
            ApiSyncCommitteeRewards,
            indices.map(String),
          ),
      },
    },
    /**
     * POST /eth/v1/beacon/pool/voluntary_exits. The node's 400 (it found the exit invalid) is an outcome,
     * with its message; anything else that is not 200 is the node failing us.
     */
    async submitVoluntaryExit(exit: {
      message: { epoch: string; validator_index: string };
      signature: string;
    }): Promise<{ accepted: true } | { accepted: false; message: string }> {
      const res = await upstream.text(new URL("/eth/v1/beacon/pool/voluntary_exits", opts.url), {
        method: "POST",
        body: JSON.stringify(exit),
        headers: { "content-type": "application/json", accept: "application/json" },
      });
      if (res.status === 200) return { accepted: true };
      if (res.status === 400) {
        let message = "the beacon node refused the exit";
        try {
          message = String((JSON.parse(res.text) as { message?: unknown }).message ?? message).slice(0, 300);
        } catch {}
        return { accepted: false, message };
      }
      throw new AppError("UPSTREAM_UNAVAILABLE", `Beacon node answered HTTP ${res.status} to the exit pool`);
    },
    /** The finalized epoch the head state names; null when the answer is optimistic (not to be trusted). */
    async finalizedEpoch(): Promise<number | null> {
      const c = await read("/eth/v1/beacon/states/head/finality_checkpoints", FinalityCheckpoints);
      if (c?.optimistic) return null;
      return c?.data.finalized.epoch ?? 0;
    },
  };
}
export type BeaconApi = ReturnType<typeof createBeaconApi>;

/** The Beacon API calls, over a `request` that gives an answer's `data` (null for 404). */
function methods(request: Read) {
  return {
    async spec(): Promise<ChainSpec> {
      const [genesis, spec] = await Promise.all([
        request("/eth/v1/beacon/genesis", Genesis),
        request("/eth/v1/config/spec", Spec),
      ]);
      if (!genesis || !spec) throw new AppError("UPSTREAM_UNAVAILABLE", "Beacon node has no genesis or spec");
      return {
        genesisTime: genesis.genesis_time,
        secondsPerSlot: spec.SECONDS_PER_SLOT,
        slotsPerEpoch: spec.SLOTS_PER_EPOCH,
        electraForkEpoch: spec.ELECTRA_FORK_EPOCH ?? 0,
      };
    },
    /** The chain's identity as the node states it (`GET /eth/v1/beacon/genesis`). */
    async chainIdentity(): Promise<Record<string, string>> {
      const g = await request("/eth/v1/beacon/genesis", GenesisIdentity);
      if (!g) throw new AppError("UPSTREAM_UNAVAILABLE", "Beacon node has no genesis");
      return {
        genesis_validators_root: g.genesis_validators_root.toLowerCase(),
        genesis_time: g.genesis_time,
        genesis_fork_version: g.genesis_fork_version.toLowerCase(),
      };
    },
    async headSlot(): Promise<number> {
      const h = await request("/eth/v1/beacon/headers/head", Header);
      if (!h) throw new AppError("UPSTREAM_UNAVAILABLE", "Beacon node has no head");
      return h.header.message.slot;
    },
    /** Root of the block at `slot`, null for a missed slot. */
    async blockRoot(slot: number): Promise<string | null> {
      const h = await request(`/eth/v1/beacon/headers/${slot}`, Header);
      return h && h.header.message.slot === slot ? h.root : null;
    },
    block: (slot: number) => request(`/eth/v2/beacon/blocks/${slot}`, ApiBlock),
    /** POST (no 64-id limit of GET); ids are pubkeys. */
    async validators(stateSlot: number | "head" | "genesis", ids: string[]): Promise<ApiValidator[]> {
      if (!ids.length) return [];
      return (
        (await request(`/eth/v1/beacon/states/${stateSlot}/validators`, z.array(ApiValidator), { ids })) ?? []
      );
    },
    async pendingConsolidations(stateSlot: number): Promise<ApiPendingConsolidation[]> {
      return (
        (await request(
          `/eth/v1/beacon/states/${stateSlot}/pending_consolidations`,
          z.array(ApiPendingConsolidation),
        )) ?? []
      );
    },
    /** The validators of a state with one of `statuses` (or its class, e.g. `active`), by POST. */
    async validatorsByStatus(stateSlot: number, statuses: string[]): Promise<ApiValidator[]> {
      return (
        (await request(`/eth/v1/beacon/states/${stateSlot}/validators`, z.array(ApiValidator), {
          statuses,
        })) ?? []
      );
    },
    async churnSpec(): Promise<ChurnSpec> {
      const spec = await request("/eth/v1/config/spec", ChurnSpec);
      if (!spec) throw new AppError("UPSTREAM_UNAVAILABLE", "Beacon node has no spec");
      return spec;
    },
    /** One validator at the head (add-stake's checks); null when the registry has none. */
    validator: (pubkey: string) => request(`/eth/v1/beacon/states/head/validators/${pubkey}`, ApiValidator),
    async pendingDeposits(stateSlot: number | "head"): Promise<ApiPendingDeposit[]> {
      return (
        (await request(`/eth/v1/beacon/states/${stateSlot}/pending_deposits`, z.array(ApiPendingDeposit))) ??
        []
      );
    },
    async pendingPartialWithdrawals(stateSlot: number | "head"): Promise<ApiPendingPartialWithdrawal[]> {
      return (
        (await request(
          `/eth/v1/beacon/states/${stateSlot}/pending_partial_withdrawals`,
          z.array(ApiPendingPartialWithdrawal),
        )) ?? []
      );
    },
    /** The node's SHARD_COMMITTEE_PERIOD: epochs a validator must have been active before it may exit. */
    async shardCommitteePeriod(): Promise<number> {
      const spec = await request("/eth/v1/config/spec", Spec);
      if (spec?.SHARD_COMMITTEE_PERIOD === undefined)
        throw new AppError("UPSTREAM_UNAVAILABLE", "Beacon node has no SHARD_COMMITTEE_PERIOD");
      return spec.SHARD_COMMITTEE_PERIOD;
    },
  };
}

/** Execution JSON-RPC through viem, on the outbound client's fetch (no retries: the next step retries). */
export function createExecutionApi(opts: { url: string; timeoutMs: number; maxBytes: number }) {
  const upstream = createUpstream({ name: "Execution node", ...opts });
  const client = createPublicClient({
    transport: http(opts.url, { fetchFn: upstream.fetch, retryCount: 0, timeout: opts.timeoutMs }),
  });
  return {
    logs: (blockHash: Hex, address: Hex[]): Promise<Log[]> =>
      upstream.call(() => client.getLogs({ blockHash, address } as never)),
    block: (blockHash: Hex) => upstream.call(() => client.getBlock({ blockHash, includeTransactions: true })),
    receipts: (blockHash: Hex) => upstream.call(() => client.getBlockReceipts({ blockHash })),
    transaction: (hash: Hex) => upstream.call(() => client.getTransaction({ hash })),
    receipt: (hash: Hex) => upstream.call(() => client.getTransactionReceipt({ hash })),
    /** An EIP-7002/7251 system contract's current fee in wei: `eth_call` with empty calldata (§3.5). */
    async requestFee(contract: Hex): Promise<bigint> {
      const { data } = await upstream.call(() => client.call({ to: contract, data: "0x" }));
      if (!data || !/^0x[0-9a-f]{64}$/i.test(data))
        throw new AppError("UPSTREAM_UNAVAILABLE", `Execution node gave no fee for ${contract}`);
      return BigInt(data);
    },
  };
}
export type ExecutionApi = ReturnType<typeof createExecutionApi>;
