import "./preset.ts";
import type { PubkeyCache } from "@chainsafe/lodestar-z/pubkeys";
import type { ChainForkConfig } from "@lodestar/config";
import {
  COMPOUNDING_WITHDRAWAL_PREFIX,
  EFFECTIVE_BALANCE_INCREMENT,
  EPOCHS_PER_HISTORICAL_VECTOR,
  ForkSeq,
  MAX_EFFECTIVE_BALANCE,
  MAX_EFFECTIVE_BALANCE_ELECTRA,
  UNSET_DEPOSIT_REQUESTS_START_INDEX,
} from "@lodestar/params";
import {
  type CachedBeaconStateElectra,
  createCachedBeaconState,
  getActiveValidatorIndices,
  getEffectiveBalanceIncrementsWithLen,
  getNextSyncCommittee,
} from "@lodestar/state-transition";
import { ssz } from "@lodestar/types";
import { devnetBeaconConfig } from "./config.ts";

export interface GenesisValidator {
  pubkey: Uint8Array;
  /** 32 bytes: 0x01 or 0x02 and the withdrawal address. */
  withdrawalCredentials: Uint8Array;
  /** Gwei; active from genesis whatever it is (a custom genesis sets it). */
  balance: number;
}

export interface GenesisOptions {
  config: ChainForkConfig;
  pubkeyCache: PubkeyCache;
  genesisTime: number;
  validators: GenesisValidator[];
  /** The network's genesis validators root (its signing domains), not recomputed from `validators`. */
  genesisValidatorsRoot: Uint8Array;
  /** The execution chain's block the beacon chain starts from. */
  executionGenesis: { blockHash: Uint8Array; blockNumber: number; timestamp: number };
}

/**
 * An Electra genesis state with every validator active from epoch 0, built field by field as the spec's
 * `initialize_beacon_state_from_eth1` leaves it (deposits applied, sync committees chosen), without the eth1
 * deposit proofs a devnet has no use for. Electra takes deposits from execution requests only, so the eth1
 * deposit index starts unset (`UNSET_DEPOSIT_REQUESTS_START_INDEX`) and no eth1 deposit is ever due.
 */
export function createGenesisState(opts: GenesisOptions): CachedBeaconStateElectra {
  const { config } = opts;
  const state = ssz.electra.BeaconState.defaultViewDU();
  state.genesisTime = opts.genesisTime;
  state.genesisValidatorsRoot = opts.genesisValidatorsRoot;
  state.fork = ssz.phase0.Fork.toViewDU({
    previousVersion: config.ELECTRA_FORK_VERSION,
    currentVersion: config.ELECTRA_FORK_VERSION,
    epoch: 0,
  });
  state.latestBlockHeader = ssz.phase0.BeaconBlockHeader.toViewDU({
    slot: 0,
    proposerIndex: 0,
    parentRoot: new Uint8Array(32),
    stateRoot: new Uint8Array(32),
    bodyRoot: ssz.electra.BeaconBlockBody.hashTreeRoot(ssz.electra.BeaconBlockBody.defaultValue()),
  });
  state.eth1Data = ssz.phase0.Eth1Data.toViewDU({
    depositRoot: new Uint8Array(32),
    depositCount: 0n,
    blockHash: opts.executionGenesis.blockHash,
  });
  state.randaoMixes = ssz.phase0.RandaoMixes.toViewDU(
    Array.from({ length: EPOCHS_PER_HISTORICAL_VECTOR }, () => opts.executionGenesis.blockHash),
  );
  for (const v of opts.validators) {
    // `get_max_effective_balance`: compounding (0x02) credentials take up to 2,048 ETH, others 32.
    const max =
      v.withdrawalCredentials[0] === COMPOUNDING_WITHDRAWAL_PREFIX
        ? MAX_EFFECTIVE_BALANCE_ELECTRA
        : MAX_EFFECTIVE_BALANCE;
    const effectiveBalance = Math.min(v.balance - (v.balance % EFFECTIVE_BALANCE_INCREMENT), max);
    state.validators.push(
      ssz.phase0.Validator.toViewDU({
        pubkey: v.pubkey,
        withdrawalCredentials: v.withdrawalCredentials,
        effectiveBalance,
        slashed: false,
        activationEligibilityEpoch: 0,
        activationEpoch: 0,
        exitEpoch: Number.POSITIVE_INFINITY,
        withdrawableEpoch: Number.POSITIVE_INFINITY,
      }),
    );
    state.balances.push(v.balance);
    state.previousEpochParticipation.push(0);
    state.currentEpochParticipation.push(0);
    state.inactivityScores.push(0);
  }
  const header = ssz.electra.ExecutionPayloadHeader.defaultViewDU();
  header.blockHash = opts.executionGenesis.blockHash;
  header.blockNumber = opts.executionGenesis.blockNumber;
  header.timestamp = opts.executionGenesis.timestamp;
  state.latestExecutionPayloadHeader = header;
  state.depositRequestsStartIndex = UNSET_DEPOSIT_REQUESTS_START_INDEX;
  state.commit();
  const active = getActiveValidatorIndices(state, 0);
  const increments = getEffectiveBalanceIncrementsWithLen(opts.validators.length);
  state.validators.getAllReadonlyValues().forEach((v, i) => {
    increments[i] = v.effectiveBalance / EFFECTIVE_BALANCE_INCREMENT;
  });
  const { syncCommittee } = getNextSyncCommittee(ForkSeq.electra, state, active, increments);
  state.currentSyncCommittee = ssz.altair.SyncCommittee.toViewDU(syncCommittee);
  state.nextSyncCommittee = ssz.altair.SyncCommittee.toViewDU(syncCommittee);
  state.commit();
  return createCachedBeaconState(state, {
    config: devnetBeaconConfig(config, opts.genesisValidatorsRoot),
    pubkeyCache: opts.pubkeyCache,
  }) as CachedBeaconStateElectra;
}
