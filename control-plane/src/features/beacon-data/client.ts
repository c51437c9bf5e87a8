import { createPublicClient, type Hex, http, type Log } from "viem";
import { z } from "zod";
import { decimalUint, hexBytes, nodeAnswer, nodeNumber } from "../../chains/node-values.ts";
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
  }),
});
export type ApiValidator = z.output<typeof ApiValidator>;
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
    }),
  }),
});
export type ApiBlock = z.output<typeof ApiBlock>;
const Header = z.object({
  root: hexBytes(32),
  header: z.object({ message: z.object({ slot: nodeNumber() }) }),
});
const Genesis = z.object({ genesis_time: nodeNumber() });
const positive = () => nodeNumber().refine((n) => n > 0, "must be positive");
const Spec = z.object({ SECONDS_PER_SLOT: positive(), SLOTS_PER_EPOCH: positive() });
const FinalityCheckpoints = z.object({ finalized: z.object({ epoch: nodeNumber() }) });

export interface ChainSpec {
  genesisTime: number;
  secondsPerSlot: number;
  slotsPerEpoch: number;
}

/**
 * Beacon API client over the one outbound client (timeouts → 504, unreachable/5xx/not JSON/past the byte
 * cap → 502). A 404 (missed slot, unknown state) is `null`; any other 4xx is the node refusing us, a 502; an
 * answer outside its schema is refused (`NodeAnswerRefused`, 502).
 */
export function createBeaconApi(opts: { url: string; timeoutMs: number; maxBytes: number }) {
  // The one Beacon API client of the control plane: the provisioning area reads through it too (add-stake).
  const upstream = createUpstream({ name: "Beacon node", ...opts });
  async function request<S extends z.ZodType>(
    path: string,
    data: S,
    body?: unknown,
  ): Promise<z.output<S> | null> {
    const init: RequestInit = body === undefined ? {} : { method: "POST", body: JSON.stringify(body) };
    const res = await upstream.json<unknown>(new URL(path, opts.url), init);
    if (res.status === 404) return null;
    if (res.status >= 400)
      throw new AppError("UPSTREAM_UNAVAILABLE", `Beacon node answered HTTP ${res.status} to ${path}`);
    // Every Beacon API answer wraps its value in `data`.
    const answer = nodeAnswer(z.object({ data }), res.body, {
      node: upstream.name,
      what: `answer to ${path}`,
    });
    return (answer as { data: z.output<S> }).data;
  }
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
      };
    },
    async headSlot(): Promise<number> {
      const h = await request("/eth/v1/beacon/headers/head", Header);
      if (!h) throw new AppError("UPSTREAM_UNAVAILABLE", "Beacon node has no head");
      return h.header.message.slot;
    },
    async finalizedEpoch(): Promise<number> {
      const c = await request("/eth/v1/beacon/states/head/finality_checkpoints", FinalityCheckpoints);
      return c?.finalized.epoch ?? 0;
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
    /** One validator at the head (add-stake's checks); null when the registry has none. */
    validator: (pubkey: string) => request(`/eth/v1/beacon/states/head/validators/${pubkey}`, ApiValidator),
    async pendingDeposits(stateSlot: number | "head"): Promise<ApiPendingDeposit[]> {
      return (
        (await request(`/eth/v1/beacon/states/${stateSlot}/pending_deposits`, z.array(ApiPendingDeposit))) ??
        []
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
