import "./preset.ts";
import type { PubkeyCache } from "@chainsafe/lodestar-z/pubkeys";
import type { ChainForkConfig } from "@lodestar/config";
import {
  COMPOUNDING_WITHDRAWAL_PREFIX,
  EFFECTIVE_BALANCE_INCREMENT,
  EPOCHS_PER_HISTORICAL_VECTOR,
  FAR_FUTURE_EPOCH,
  ForkSeq,
  MAX_EFFECTIVE_BALANCE,
  MAX_EFFECTIVE_BALANCE_ELECTRA,
  MIN_ACTIVATION_BALANCE,
  UNSET_DEPOSIT_REQUESTS_START_INDEX,
} from "@lodestar/params";
import {
  type BeaconStateDeneb,
  type BeaconStateElectra,
  createCachedBeaconState,
  getActiveValidatorIndices,
  getEffectiveBalanceIncrementsWithLen,
  getNextSyncCommittee,
} from "@lodestar/state-transition";
import { ssz } from "@lodestar/types";
import { devnetBeaconConfig } from "./config.ts";
import { type DevnetState, typesAt } from "./fork.ts";

export interface GenesisValidator {
  pubkey: Uint8Array;
  /** 32 bytes: 0x01 or 0x02 and the withdrawal address. */
  withdrawalCredentials: Uint8Array;
  /**
   * Gwei. At least MIN_ACTIVATION_BALANCE (32 ETH): active from genesis; less: pending_initialized, as the
   * spec's genesis leaves such a validator.
   */
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
 * The genesis state of the config's genesis fork (Electra, or Deneb when Electra comes later) with every
 * validator of at least 32 ETH active from epoch 0, built field by field as the spec's
 * `initialize_beacon_state_from_eth1` leaves it (deposits applied, sync committees chosen), without the eth1
 * deposit proofs a devnet has no use for. Electra takes deposits from execution requests only, so its eth1
 * deposit index starts unset (`UNSET_DEPOSIT_REQUESTS_START_INDEX`) and no eth1 deposit is ever due (a Deneb
 * genesis leaves it to `upgradeStateToElectra`, which sets it so).
 */
export function createGenesisState(opts: GenesisOptions): DevnetState {
  const { config } = opts;
  const electra = config.getForkSeq(0) >= ForkSeq.electra;
  const types = typesAt(config, 0);
  const state: BeaconStateDeneb | BeaconStateElectra = electra
    ? ssz.electra.BeaconState.defaultViewDU()
    : ssz.deneb.BeaconState.defaultViewDU();
  const version = electra ? config.ELECTRA_FORK_VERSION : config.DENEB_FORK_VERSION;
  state.genesisTime = opts.genesisTime;
  state.genesisValidatorsRoot = opts.genesisValidatorsRoot;
  state.fork = ssz.phase0.Fork.toViewDU({ previousVersion: version, currentVersion: version, epoch: 0 });
  state.latestBlockHeader = ssz.phase0.BeaconBlockHeader.toViewDU({
    slot: 0,
    proposerIndex: 0,
    parentRoot: new Uint8Array(32),
    stateRoot: new Uint8Array(32),
    bodyRoot: types.BeaconBlockBody.hashTreeRoot(types.BeaconBlockBody.defaultValue()),
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
    // Electra's get_max_effective_balance: 2048 ETH for compounding (0x02) credentials, 32 ETH otherwise;
    // 32 ETH for every validator before Electra.
    const max =
      electra && v.withdrawalCredentials[0] === COMPOUNDING_WITHDRAWAL_PREFIX
        ? MAX_EFFECTIVE_BALANCE_ELECTRA
        : electra
          ? MIN_ACTIVATION_BALANCE
          : MAX_EFFECTIVE_BALANCE;
    const effectiveBalance = Math.min(v.balance - (v.balance % EFFECTIVE_BALANCE_INCREMENT), max);
    const activation = effectiveBalance >= MIN_ACTIVATION_BALANCE ? 0 : FAR_FUTURE_EPOCH;
    state.validators.push(
      ssz.phase0.Validator.toViewDU({
        pubkey: v.pubkey,
        withdrawalCredentials: v.withdrawalCredentials,
        effectiveBalance,
        slashed: false,
        activationEligibilityEpoch: activation,
        activationEpoch: activation,
        exitEpoch: Number.POSITIVE_INFINITY,
        withdrawableEpoch: Number.POSITIVE_INFINITY,
      }),
    );
    state.balances.push(v.balance);
    state.previousEpochParticipation.push(0);
    state.currentEpochParticipation.push(0);
    state.inactivityScores.push(0);
  }
  // Electra kept Deneb's execution payload header.
  const header = ssz.deneb.ExecutionPayloadHeader.defaultViewDU();
  header.blockHash = opts.executionGenesis.blockHash;
  header.blockNumber = opts.executionGenesis.blockNumber;
  header.timestamp = opts.executionGenesis.timestamp;
  state.latestExecutionPayloadHeader = header;
  if (electra) (state as BeaconStateElectra).depositRequestsStartIndex = UNSET_DEPOSIT_REQUESTS_START_INDEX;
  state.commit();
  const active = getActiveValidatorIndices(state, 0);
  const increments = getEffectiveBalanceIncrementsWithLen(opts.validators.length);
  state.validators.getAllReadonlyValues().forEach((v, i) => {
    increments[i] = v.effectiveBalance / EFFECTIVE_BALANCE_INCREMENT;
  });
  const { syncCommittee } = getNextSyncCommittee(config.getForkSeq(0), state, active, increments);
  state.currentSyncCommittee = ssz.altair.SyncCommittee.toViewDU(syncCommittee);
  state.nextSyncCommittee = ssz.altair.SyncCommittee.toViewDU(syncCommittee);
  state.commit();
  return createCachedBeaconState(state, {
    config: devnetBeaconConfig(config, opts.genesisValidatorsRoot),
    pubkeyCache: opts.pubkeyCache,
  }) as DevnetState;
}
