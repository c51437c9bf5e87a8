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
  };
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
    };
  };
}
export interface ChainSpec {
  genesisTime: number;
  secondsPerSlot: number;
  slotsPerEpoch: number;
}

/**
 * Beacon API client over the one outbound client (timeouts → 504, unreachable/5xx/not JSON → 502). A 404
 * (missed slot, unknown state) is `null`; any other 4xx is the node refusing us, a 502.
 */
export function createBeaconApi(opts: { url: string; timeoutMs: number; maxBytes: number }) {
  // The one Beacon API client of the control plane: the provisioning area reads through it too (add-stake).
  const upstream = createUpstream({ name: "Beacon node", ...opts });
  async function request<T>(path: string, body?: unknown): Promise<T | null> {
    const init: RequestInit = body === undefined ? {} : { method: "POST", body: JSON.stringify(body) };
    const res = await upstream.json<{ data: T }>(new URL(path, opts.url), init);
    if (res.status === 404) return null;
    if (res.status >= 400)
      throw new AppError("UPSTREAM_UNAVAILABLE", `Beacon node answered HTTP ${res.status} to ${path}`);
    return res.body.data;
  }
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
      };
    },
    async headSlot(): Promise<number> {
      const h = await request<{ header: { message: { slot: string } } }>("/eth/v1/beacon/headers/head");
      if (!h) throw new AppError("UPSTREAM_UNAVAILABLE", "Beacon node has no head");
      return Number(h.header.message.slot);
    },
    async finalizedEpoch(): Promise<number> {
      const c = await request<{ finalized: { epoch: string } }>(
        "/eth/v1/beacon/states/head/finality_checkpoints",
      );
      return Number(c?.finalized.epoch ?? 0);
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
  };
}
export type BeaconApi = ReturnType<typeof createBeaconApi>;

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
  };
}
export type ExecutionApi = ReturnType<typeof createExecutionApi>;
