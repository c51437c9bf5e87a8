import { type Block, type Chain, type ChainValidator, effectiveBalance } from "./chain.ts";

/**
 * The Beacon API's JSON shapes of the simulated chain (ethereum/beacon-APIs): a validator, a block, its
 * header, a checkpoint, and the standard's state and block ids. The routes that answer with them are
 * server.ts's.
 */
export function beaconViews(chain: Chain) {
  const S = chain.slotsPerEpoch;
  const view = (v: ChainValidator, index: number) => ({
    index: String(index),
    balance: v.balance.toString(),
    status: v.status,
    validator: {
      pubkey: v.pubkey,
      withdrawal_credentials: v.withdrawalCredentials,
      effective_balance: effectiveBalance(v).toString(),
      slashed: false,
      activation_eligibility_epoch: v.eligibilityEpoch.toString(),
      activation_epoch: v.activationEpoch.toString(),
      exit_epoch: v.exitEpoch.toString(),
      withdrawable_epoch: v.withdrawableEpoch.toString(),
    },
  });
  const ROOT = /^0x[0-9a-fA-F]{64}$/;
  /**
   * A state or block id of the standard: `head`, `genesis`, `finalized`, `justified`, a slot or a root.
   * `invalid` for anything else (the standard's 400); undefined for an id the node does not have (404).
   */
  const slotOf = (id: string): number | "invalid" | undefined => {
    if (id === "head") return chain.head;
    if (id === "genesis") return 0;
    if (id === "finalized") return chain.finalizedEpoch() * S;
    if (id === "justified") return (chain.finalizedEpoch() + 1) * S;
    if (/^\d+$/.test(id)) return Number(id) <= chain.head ? Number(id) : undefined;
    if (ROOT.test(id)) return chain.blockByRoot(id.toLowerCase())?.slot;
    return "invalid";
  };
  const blockOf = (id: string): Block | "invalid" | undefined => {
    const slot = slotOf(id);
    if (slot === undefined || slot === "invalid") return slot;
    return /^\d+$/.test(id) || ROOT.test(id) ? chain.blockAt(slot) : chain.latestBlock(slot);
  };
  const zero = (bytes: number) => `0x${"00".repeat(bytes)}`;
  /** A block's body as the fork's SSZ container in JSON (the simulation has no attestations or slashings). */
  const body = (b: Block) => ({
    randao_reveal: zero(96),
    eth1_data: { deposit_root: zero(32), deposit_count: "0", block_hash: zero(32) },
    graffiti: zero(32),
    proposer_slashings: [],
    attester_slashings: [],
    attestations: [],
    deposits: [],
    voluntary_exits: b.voluntaryExits ?? [],
    sync_aggregate: { sync_committee_bits: zero(64), sync_committee_signature: `0xc0${"00".repeat(95)}` },
    execution_payload: b.payload,
    bls_to_execution_changes: [],
    blob_kzg_commitments: [],
    ...(b.version === "electra" ? { execution_requests: b.requests } : {}),
  });
  const header = (b: Block) => ({
    root: b.root,
    canonical: true,
    header: {
      message: {
        slot: String(b.slot),
        proposer_index: String(b.proposerIndex),
        parent_root: b.parentRoot,
        state_root: b.root,
        body_root: b.root,
      },
      signature: `0x${"00".repeat(96)}`,
    },
  });
  const checkpoint = (epoch: number) => ({
    epoch: String(epoch),
    root: chain.latestBlock(epoch * S)?.root ?? `0x${"00".repeat(32)}`,
  });
  return { view, slotOf, blockOf, body, header, checkpoint, zero };
}
