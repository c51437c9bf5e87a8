import { AppError } from "../../errors.ts";
import type { Upstream } from "../../http/upstream.ts";

/** Account as returned with `encoding: "base64"`. */
export interface RpcAccount {
  lamports: number;
  owner: string;
  data: [string, "base64"];
  executable: boolean;
}

export interface SolanaRpc {
  call<T>(method: string, params?: unknown[]): Promise<T>;
  getJson<T>(url: string): Promise<T>;
}

/**
 * Minimal Solana JSON-RPC client over the outbound client (timeout → 504, unreachable or 5xx → 502). An
 * RPC error object is a 502 too: the node's message goes to the log via `cause`, never to the client.
 */
export function createSolanaRpc(opts: { url: string; upstream: Upstream }): SolanaRpc {
  const { upstream } = opts;
  let id = 0;
  return {
    async call<T>(method: string, params: unknown[] = []): Promise<T> {
      const { body } = await upstream.json<{ result?: T; error?: { code: number; message: string } }>(
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
      return body.result as T;
    },
    async getJson<T>(url: string): Promise<T> {
      const res = await upstream.json<T>(url);
      if (res.status !== 200)
        throw new AppError("UPSTREAM_UNAVAILABLE", `${upstream.name} answered HTTP ${res.status}`);
      return res.body;
    },
  };
}

export function accountData(a: RpcAccount): Uint8Array {
  return new Uint8Array(Buffer.from(a.data[0], "base64"));
}
