import { withdrawalAddressOf } from "../../chains/beacon.ts";
import { pageEnvelope, pageOf } from "../../http/paging.ts";
import type { BeaconDataRepo } from "./repo.ts";
import type { ListQuery, TransactionsQuery } from "./schemas.ts";

type Network = "HOODI" | "MAINNET";
type ListRow = Awaited<ReturnType<BeaconDataRepo["listValidators"]>>["rows"][number];
type TransactionRow = Awaited<ReturnType<BeaconDataRepo["transactions"]>>["rows"][number];

const validatorOf = (r: ListRow, network: Network) => ({
  validator: {
    fee_recipient: r.fee_recipient?.toLowerCase() ?? null,
    network,
    pubkey: r.pubkey,
    beacon_status: r.beacon_status as never,
    withdrawal_address: r.withdrawal_credentials ? withdrawalAddressOf(r.withdrawal_credentials) : null,
    withdrawal_credentials: r.withdrawal_credentials,
    index: r.validator_index,
    balances: { current_staked: r.balance_gwei ?? "0" },
    lifecycle: {
      status_history: (r.history ?? []).map((h) => ({
        status: h.status as never,
        time: new Date(h.time).toISOString(),
      })),
      beacon_status_history: (r.beacon_history ?? []).map((h) => ({
        status: h.status as never,
        epoch: h.epoch,
      })),
    },
  },
});

const transactionOf = (t: TransactionRow) => ({
  transactionHash: String(t.transaction_hash),
  blockNumber: Number(t.block_number),
  blockTimestamp: Number(t.block_timestamp),
  data: String(t.data),
  fee: String(t.fee_gwei),
  from: String(t.from),
  to: String(t.to),
  layer: t.layer as "EXECUTION_LAYER" | "CONSENSUS_LAYER",
  type: t.type as "DEPOSIT" | "PARTIAL_EXIT" | "FULL_WITHDRAWAL" | "CONSOLIDATE" | "SWITCH",
  pubkey: String(t.pubkey),
  sourcePubkey: (t.source_pubkey as string | null) ?? null,
  targetPubkey: (t.target_pubkey as string | null) ?? null,
  amount: String(t.amount_gwei),
  withdrawalAddress: (t.withdrawal_address as string | null) ?? null,
  withdrawalCredentials: (t.withdrawal_credentials as string | null) ?? null,
});

/** The organisation's validators and their transactions, as indexed. */
export function createValidatorReads(deps: { repo: BeaconDataRepo; network: Network }) {
  const { repo } = deps;
  return {
    async list(organisationId: string, q: ListQuery) {
      const { rows, total } = await repo.listValidators(
        organisationId,
        { pubkeys: q.pubkeys, withdrawalAddresses: q.withdrawal_addresses },
        pageOf(q),
      );
      return { results: rows.map((r) => validatorOf(r, deps.network)), ...pageEnvelope(pageOf(q), total) };
    },

    async transactions(organisationId: string, q: TransactionsQuery) {
      const { rows, total } = await repo.transactions(organisationId, q.pubkeys, pageOf(q));
      return { results: rows.map(transactionOf), ...pageEnvelope(pageOf(q), total) };
    },
  };
}
