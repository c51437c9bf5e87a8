import { createPublicClient, type Hex, http, type Log } from "viem";
import { AppError } from "../../errors.ts";
import { createUpstream } from "../../http/upstream.ts";

/** The standard Beacon API shapes the indexer reads (ethereum/beacon-APIs; numbers are decimal strings). */
export interface ApiValidator {
  index: string;
  balance: string;
  status: string;
  validator: {
    pubkey: string;
    withdrawal_credentials: string;
    effective_balance: string;
    /** Always present in the standard's answer; optional here so an older fixture reads as unslashed. */
    slashed?: boolean;
    /** Always present in the standard's answer (decimal epochs); read by the exit checks. */
    activation_epoch?: string;
    exit_epoch?: string;
  };
}
/** An Electra pending partial withdrawal (EIP-7002), paid by the sweep from `withdrawable_epoch`. */
export interface ApiPendingPartialWithdrawal {
  validator_index: string;
  amount: string;
  withdrawable_epoch: string;
}
/** An EIP-7251 consolidation waiting for its source to become withdrawable (validator indices). */
export interface ApiPendingConsolidation {
  source_index: string;
  target_index: string;
}
export interface ApiPendingDeposit {
  pubkey: string;
  amount: string;
}
export interface ApiBlock {
  message: {
    slot: string;
    proposer_index: string;
    body: {
      execution_payload?: {
        fee_recipient: string;
        block_number: string;
        block_hash: string;
        timestamp: string;
        withdrawals?: { index: string; validator_index: string; address: string; amount: string }[];
      };
      execution_requests?: { deposits?: { pubkey: string; amount: string }[] };
      /** Deposits bridged from the deposit contract's log (applied at once before Electra, queued since). */
      deposits?: { data: { pubkey: string; amount: string } }[];
    };
  };
}
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

/**
 * Beacon API client over the one outbound client (timeouts → 504, unreachable/5xx/not JSON → 502). A 404
 * (missed slot, unknown state) is `null`; any other 4xx is the node refusing us, a 502. `verified` is the
 * same client for the indexer's chain reads: an optimistic answer there throws `OptimisticAnswer`.
 */
export function createBeaconApi(opts: { url: string; timeoutMs: number }) {
  // The one Beacon API client of the control plane: the provisioning area reads through it too (add-stake).
  const upstream = createUpstream({ name: "Beacon node", timeoutMs: opts.timeoutMs });
  async function read<T>(path: string, body?: unknown): Promise<{ data: T; optimistic: boolean } | null> {
    const init: RequestInit = body === undefined ? {} : { method: "POST", body: JSON.stringify(body) };
    const res = await upstream.json<{ data: T; execution_optimistic?: boolean }>(
      new URL(path, opts.url),
      init,
    );
    if (res.status === 404) return null;
    if (res.status >= 400)
      throw new AppError("UPSTREAM_UNAVAILABLE", `Beacon node answered HTTP ${res.status} to ${path}`);
    return { data: res.body.data, optimistic: res.body.execution_optimistic === true };
  }
  const api = methods(async <T>(path: string, body?: unknown) => (await read<T>(path, body))?.data ?? null);
  return {
    ...api,
    verified: methods(async <T>(path: string, body?: unknown) => {
      const answer = await read<T>(path, body);
      if (answer?.optimistic) throw new OptimisticAnswer(path);
      return answer?.data ?? null;
    }),
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
      const c = await read<{ finalized: { epoch: string } }>(
        "/eth/v1/beacon/states/head/finality_checkpoints",
      );
      if (c?.optimistic) return null;
      return Number(c?.data.finalized.epoch ?? 0);
    },
  };
}
export type BeaconApi = ReturnType<typeof createBeaconApi>;

/** The Beacon API calls, over a `request` that gives an answer's `data` (null for 404). */
function methods(request: <T>(path: string, body?: unknown) => Promise<T | null>) {
  return {
    async spec(): Promise<ChainSpec> {
      const [genesis, spec] = await Promise.all([
        request<{ genesis_time: string }>("/eth/v1/beacon/genesis"),
        request<Record<string, string>>("/eth/v1/config/spec"),
      ]);
      if (!genesis || !spec) throw new AppError("UPSTREAM_UNAVAILABLE", "Beacon node has no genesis or spec");
      return {
        genesisTime: Number(genesis.genesis_time),
        secondsPerSlot: Number(spec.SECONDS_PER_SLOT),
        slotsPerEpoch: Number(spec.SLOTS_PER_EPOCH),
        electraForkEpoch: Number(spec.ELECTRA_FORK_EPOCH ?? 0),
      };
    },
    async headSlot(): Promise<number> {
      const h = await request<{ header: { message: { slot: string } } }>("/eth/v1/beacon/headers/head");
      if (!h) throw new AppError("UPSTREAM_UNAVAILABLE", "Beacon node has no head");
      return Number(h.header.message.slot);
    },
    /** Root of the block at `slot`, null for a missed slot. */
    async blockRoot(slot: number): Promise<string | null> {
      const h = await request<{ root: string; header: { message: { slot: string } } }>(
        `/eth/v1/beacon/headers/${slot}`,
      );
      return h && Number(h.header.message.slot) === slot ? h.root : null;
    },
    block: (slot: number) => request<ApiBlock>(`/eth/v2/beacon/blocks/${slot}`),
    /** POST (no 64-id limit of GET); ids are pubkeys. */
    async validators(stateSlot: number | "head" | "genesis", ids: string[]): Promise<ApiValidator[]> {
      if (!ids.length) return [];
      return (await request<ApiValidator[]>(`/eth/v1/beacon/states/${stateSlot}/validators`, { ids })) ?? [];
    },
    async pendingConsolidations(stateSlot: number): Promise<ApiPendingConsolidation[]> {
      return (
        (await request<ApiPendingConsolidation[]>(
          `/eth/v1/beacon/states/${stateSlot}/pending_consolidations`,
        )) ?? []
      );
    },
    /** One validator at the head (add-stake's checks); null when the registry has none. */
    validator: (pubkey: string) => request<ApiValidator>(`/eth/v1/beacon/states/head/validators/${pubkey}`),
    async pendingDeposits(stateSlot: number | "head"): Promise<ApiPendingDeposit[]> {
      return (
        (await request<ApiPendingDeposit[]>(`/eth/v1/beacon/states/${stateSlot}/pending_deposits`)) ?? []
      );
    },
    async pendingPartialWithdrawals(stateSlot: number | "head"): Promise<ApiPendingPartialWithdrawal[]> {
      return (
        (await request<ApiPendingPartialWithdrawal[]>(
          `/eth/v1/beacon/states/${stateSlot}/pending_partial_withdrawals`,
        )) ?? []
      );
    },
    /** The node's SHARD_COMMITTEE_PERIOD: epochs a validator must have been active before it may exit. */
    async shardCommitteePeriod(): Promise<number> {
      const spec = await request<Record<string, string>>("/eth/v1/config/spec");
      const n = Number(spec?.SHARD_COMMITTEE_PERIOD);
      if (!Number.isSafeInteger(n) || n < 0)
        throw new AppError("UPSTREAM_UNAVAILABLE", "Beacon node has no SHARD_COMMITTEE_PERIOD");
      return n;
    },
  };
}

/** Execution JSON-RPC through viem, on the outbound client's fetch (no retries: the next step retries). */
export function createExecutionApi(opts: { url: string; timeoutMs: number }) {
  const upstream = createUpstream({ name: "Execution node", timeoutMs: opts.timeoutMs });
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
