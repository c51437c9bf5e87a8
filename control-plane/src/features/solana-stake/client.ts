import { AppError } from "../../errors.ts";

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
 * Minimal Solana JSON-RPC client over fetch. Timeouts become UPSTREAM_TIMEOUT, transport and RPC errors
 * UPSTREAM_UNAVAILABLE (the node's message goes to the log via `cause`, never to the client).
 */
export function createSolanaRpc(opts: { url: string; timeoutMs: number }): SolanaRpc {
  let id = 0;
  const request = async (url: string, init: RequestInit) => {
    try {
      const res = await fetch(url, { ...init, signal: AbortSignal.timeout(opts.timeoutMs) });
      if (!res.ok) throw new Error(`HTTP ${res.status}`);
      return (await res.json()) as unknown;
    } catch (e) {
      const name = (e as { name?: string }).name;
      if (name === "TimeoutError" || name === "AbortError") {
        throw new AppError("UPSTREAM_TIMEOUT", "Solana node did not answer in time", { cause: e });
      }
      throw new AppError("UPSTREAM_UNAVAILABLE", "Solana node is unavailable", { cause: e });
    }
  };
  return {
    async call<T>(method: string, params: unknown[] = []): Promise<T> {
      const body = (await request(opts.url, {
        method: "POST",
        headers: { "content-type": "application/json" },
        body: JSON.stringify({ jsonrpc: "2.0", id: ++id, method, params }),
      })) as { result?: T; error?: { code: number; message: string } };
      if (body.error) {
        throw new AppError("UPSTREAM_UNAVAILABLE", `Solana RPC ${method} failed`, {
          cause: new Error(`${body.error.code}: ${body.error.message}`),
        });
      }
      return body.result as T;
    },
    async getJson<T>(url: string): Promise<T> {
      return (await request(url, { method: "GET" })) as T;
    },
  };
}

export function accountData(a: RpcAccount): Uint8Array {
  return new Uint8Array(Buffer.from(a.data[0], "base64"));
}
