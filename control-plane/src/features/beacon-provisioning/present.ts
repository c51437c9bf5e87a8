import type { ValidatorLifecycle } from "../beacon-data/tracking.ts";
import type { ProvisionRow, ValidatorRow } from "./repo.ts";

/** A validator row with the lifecycle status, index and beacon statuses beacon-data keeps for it. */
export type ListedValidator = ValidatorRow & ValidatorLifecycle;

const no0x = (h: string) => h.replace(/^0x/, "");

/** page/per_page given → paginate (defaults 1 and 50); neither → everything, with nulls in the envelope. */
/** Fields shared by the validator objects and deposit details responses. */
export function provisionHeader(p: ProvisionRow, withdrawalCredentials: string) {
  return {
    batch: p.attributes.batch,
    withdrawal_credentials: withdrawalCredentials,
    validatorsCount: p.attributes.validatorsCount,
    clientId: p.organisationId,
    provisionId: p.id,
  };
}

/** What every validator item starts with. */
function validatorFields(v: ListedValidator) {
  return {
    validatorIndex: v.validatorIndex,
    validatorAddress: v.pubkey,
    amount: Number(v.amountGwei),
    created: v.createdAt.toISOString(),
    status: v.status,
    ...beaconFields(v),
  };
}

/** Our addition: where the chain has the validator, by the rules (docs/spec.md "Beacon status"). */
export const beaconFields = (v: ListedValidator) => ({
  beaconStatus: v.beaconStatus,
  beaconStatusHistory: v.beaconStatusHistory,
});

export function validatorItem(v: ListedValidator, batch: boolean) {
  return {
    ...validatorFields(v),
    depositInput: batch ? null : v.depositInput,
    to: batch ? null : v.depositTo,
    value: batch ? null : v.depositValue,
  };
}

/** Everything a deposit-data JSON entry carries (hex without 0x, as the deposit CLIs write it). */
export function depositDetailItem(v: ListedValidator) {
  return {
    ...validatorFields(v),
    signature: no0x(v.signature),
    pubkey: no0x(v.pubkey),
    withdrawal_credentials: no0x(v.withdrawalCredentials),
    deposit_message_root: no0x(v.depositMessageRoot),
    deposit_data_root: no0x(v.depositDataRoot),
    fork_version: no0x(v.forkVersion),
    network_name: v.networkName,
  };
}
