import { z } from "zod";
import { jsonUint, nodeAnswer } from "../../chains/node-values.ts";
import { AppError } from "../../errors.ts";
import type { Upstream } from "../../http/upstream.ts";

/**
 * The answers the area reads, as schemas (`chains/node-values.ts`): lamports, slots, epochs and times are
 * non-negative integers JSON can hold exactly (below 2^53; a larger one would already be rounded).
 */
const uint = () => jsonUint();
/** Account as returned with `encoding: "base64"`. */
export const RpcAccount = z.object({
  lamports: uint(),
  owner: z.string(),
  data: z.tuple([z.string(), z.literal("base64")]),
  executable: z.boolean(),
});
export type RpcAccount = z.output<typeof RpcAccount>;
export const RpcTransaction = z.object({
  transaction: z.tuple([z.string(), z.string()]),
  blockTime: uint().nullish(),
  meta: z
    .object({
      loadedAddresses: z.object({ writable: z.array(z.string()), readonly: z.array(z.string()) }).nullish(),
    })
    .nullish(),
});
export type RpcTransaction = z.output<typeof RpcTransaction>;
const Vote = z.object({ votePubkey: z.string(), nodePubkey: z.string() });
export const SolanaAnswers = {
  account: z.object({ value: RpcAccount.nullable() }),
  accounts: z.object({ value: z.array(RpcAccount.nullable()) }),
  programAccounts: z.array(z.object({ pubkey: z.string(), account: RpcAccount })),
  balance: z.object({ value: uint() }),
  epochInfo: z.object({ epoch: uint() }),
  epochSchedule: z.object({
    slotsPerEpoch: uint().min(1),
    firstNormalEpoch: uint(),
    firstNormalSlot: uint(),
  }),
  blockTime: uint().nullable(),
  signatures: z.array(
    z.object({ signature: z.string(), slot: uint(), blockTime: uint().nullable(), err: z.unknown() }),
  ),
  transaction: RpcTransaction.nullable(),
  inflationRewards: z.array(z.object({ amount: uint(), postBalance: uint() }).nullable()),
  lamports: uint(),
  voteAccounts: z.object({ current: z.array(Vote), delinquent: z.array(Vote) }),
  latestBlockhash: z.object({ value: z.object({ blockhash: z.string(), lastValidBlockHeight: uint() }) }),
  fee: z.object({ value: uint().nullable() }),
  /** The Jito-style staker-rewards API. */
  mevRewards: z.object({
    rewards: z.array(
      z.object({
        claimant: z.string(),
        epoch: uint(),
        amount: uint(),
        priority_fee_amount: uint().nullish(),
      }),
    ),
  }),
} as const;

export interface SolanaRpc {
  /** `method`'s result, checked against `result` (an answer outside it is refused, 502). */
  call<S extends z.ZodType>(method: string, params: unknown[], result: S): Promise<z.output<S>>;
  getJson<S extends z.ZodType>(url: string, answer: S): Promise<z.output<S>>;
}

/**
 * Minimal Solana JSON-RPC client over the outbound client (timeout → 504, unreachable or 5xx → 502). An
 * RPC error object is a 502 too: the node's message goes to the log via `cause`, never to the client.
 */
export function createSolanaRpc(opts: { url: string; upstream: Upstream }): SolanaRpc {
  const { upstream } = opts;
  let id = 0;
  return {
    async call<S extends z.ZodType>(method: string, params: unknown[], result: S): Promise<z.output<S>> {
      const { body } = await upstream.json<{ result?: unknown; error?: { code: number; message: string } }>(
        opts.url,
        {
          method: "POST",
          body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
        },
      );
      if (body.error) {
        throw new AppError("UPSTREAM_UNAVAILABLE", `Solana RPC ${method} failed`, {
          cause: new Error(`${body.error.code}: ${body.error.message}`),
        });
      }
      return nodeAnswer(result, body.result, { node: upstream.name, what: `${method} result` });
    },
    async getJson<S extends z.ZodType>(url: string, answer: S): Promise<z.output<S>> {
      const res = await upstream.json<unknown>(url);
      if (res.status !== 200)
        throw new AppError("UPSTREAM_UNAVAILABLE", `${upstream.name} answered HTTP ${res.status}`);
      return nodeAnswer(answer, res.body, { node: upstream.name, what: "answer" });
    },
  };
}

export function accountData(a: RpcAccount): Uint8Array {
  return new Uint8Array(Buffer.from(a.data[0], "base64"));
}
