import { AppError } from "../../errors.ts";

/** What add-stake needs from a beacon node: status, balance and queued deposits of one validator. */
export interface BeaconValidator {
  index: string;
  /** Gwei, decimal string. */
  balance: string;
  status: string;
  validator: { pubkey: string; withdrawal_credentials: string };
}

export interface PendingDeposit {
  pubkey: string;
  amount: string;
}

/** Beacon REST client (ethereum/beacon-APIs). Any failure to reach the node is an UPSTREAM_* error. */
export function createBeaconClient(baseUrl: string, timeoutMs = 5000) {
  async function get<T>(path: string): Promise<T | null> {
    let res: Response;
    try {
      res = await fetch(new URL(path, baseUrl), { signal: AbortSignal.timeout(timeoutMs) });
    } catch (err) {
      const timeout = (err as Error).name === "TimeoutError";
      throw new AppError(timeout ? "UPSTREAM_TIMEOUT" : "UPSTREAM_UNAVAILABLE", "Beacon node unreachable", {
        cause: err,
      });
    }
    if (res.status === 404) return null;
    if (!res.ok) throw new AppError("UPSTREAM_UNAVAILABLE", `Beacon node answered ${res.status}`);
    return ((await res.json()) as { data: T }).data;
  }
  return {
    validator: (pubkey: string) => get<BeaconValidator>(`/eth/v1/beacon/states/head/validators/${pubkey}`),
    async pendingDeposits(): Promise<PendingDeposit[]> {
      return (await get<PendingDeposit[]>("/eth/v1/beacon/states/head/pending_deposits")) ?? [];
    },
  };
}

export type BeaconClient = ReturnType<typeof createBeaconClient>;
