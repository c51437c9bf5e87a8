import { AppError } from "../../errors.ts";
import type { Upstream } from "../../http/upstream.ts";

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

/** Beacon REST client (ethereum/beacon-APIs) over the outbound client; a 404 is "not on the chain". */
export function createBeaconClient(opts: { baseUrl: string; upstream: Upstream }) {
  async function get<T>(path: string): Promise<T | null> {
    const res = await opts.upstream.json<{ data: T }>(new URL(path, opts.baseUrl));
    if (res.status === 404) return null;
    if (res.status !== 200) throw new AppError("UPSTREAM_UNAVAILABLE", `Beacon node answered ${res.status}`);
    return res.body.data;
  }
  return {
    validator: (pubkey: string) => get<BeaconValidator>(`/eth/v1/beacon/states/head/validators/${pubkey}`),
    async pendingDeposits(): Promise<PendingDeposit[]> {
      return (await get<PendingDeposit[]>("/eth/v1/beacon/states/head/pending_deposits")) ?? [];
    },
  };
}

export type BeaconClient = ReturnType<typeof createBeaconClient>;
