import type { Db } from "@stake/db/client";
import { withdrawalAddressOf } from "../../chains/beacon.ts";
import type { BeaconNetwork } from "../../chains/beacon-networks.ts";
import { toChecksumAddress } from "../../chains/evm.ts";
import type { Config } from "../../config.ts";
import { AppError, type ErrorCode } from "../../errors.ts";
import { assertInScope, type StakingAuth } from "../../http/api-key-auth.ts";
import type { Logger } from "../../log.ts";
import { createKeyCipher } from "../../platform/secret-envelope.ts";
import type { ApiValidator, BeaconApi, ExecutionApi } from "../beacon-data/client.ts";
import type { Tracking } from "../beacon-data/tracking.ts";
import { blsKeyFromSecret } from "./bls.ts";
import { buildVoluntaryExit, type SignedVoluntaryExit } from "./exit-builder.ts";
import type { ProvisioningRepo, ValidatorRow } from "./repo.ts";

export const FAR_FUTURE = "18446744073709551615";

/** What the exit service's use cases are built from (the composition root passes them). */
export interface ExitDeps {
  /** Opens the unit of work that writes the organisation's own steps. */
  db: Db;
  repo: ProvisioningRepo;
  beacon: Pick<
    BeaconApi,
    | "validators"
    | "spec"
    | "headSlot"
    | "shardCommitteePeriod"
    | "pendingPartialWithdrawals"
    | "submitVoluntaryExit"
  >;
  execution: Pick<ExecutionApi, "requestFee">;
  eth: Config["eth"];
  network: BeaconNetwork;
  /** beacon-data's port: the organisation's own lifecycle steps EXIT_REQUESTED and EXIT_SENT. */
  tracking: Pick<Tracking, "lockStatuses" | "recordOwnSteps">;
  /** Per-organisation bound of the calls that sign (ETH_EXIT_SIGNING_PER_MINUTE); throws RATE_LIMITED. */
  limit: (organisationId: string) => Promise<unknown>;
  logger: Logger;
}

/** The exit rules' inputs, read from the node once per request. */
export interface ExitContext {
  /** The epoch of the node's next slot, which the request is for. */
  epoch: number;
  /** SHARD_COMMITTEE_PERIOD, epochs. */
  period: number;
  /** Gwei of queued partial withdrawals by validator index. */
  pending: Map<string, bigint>;
  /** The next slot's time: the history's times of a request are the chain's. */
  time: Date;
}

/** One validator of the organisation with its state at the node's head. */
export interface Owned {
  row: ValidatorRow;
  chain: ApiValidator | undefined;
}

export const refuse = (code: ErrorCode, pubkey: string, message: string, field = "pubkeys") =>
  new AppError(code, `${pubkey}: ${message}`, { details: [{ field, message: `${pubkey}: ${message}` }] });

/**
 * The validator if it is active and not exiting (`active_ongoing`, no exit epoch), else 409
 * VALIDATOR_NOT_ACTIVE naming its status (`what`: how the request calls it).
 */
export function assertActive(pubkey: string, v: ApiValidator | undefined, what = ""): ApiValidator {
  if (v?.status === "active_ongoing" && (v.validator.exit_epoch ?? FAR_FUTURE) === FAR_FUTURE) return v;
  throw refuse(
    "VALIDATOR_NOT_ACTIVE",
    pubkey,
    `${what}is ${v?.status ?? "not on the beacon chain"}, not active`,
  );
}

/** Active, not exiting, active for SHARD_COMMITTEE_PERIOD: what every exit path asserts (Electra). */
export function assertExitable(pubkey: string, v: ApiValidator | undefined, ctx: ExitContext): ApiValidator {
  const active = assertActive(pubkey, v);
  const from = Number(active.validator.activation_epoch ?? 0) + ctx.period;
  if (ctx.epoch < from) {
    throw refuse(
      "VALIDATOR_NOT_EXITABLE_YET",
      pubkey,
      `must have been active for ${ctx.period} epochs (SHARD_COMMITTEE_PERIOD): exitable from epoch ${from}`,
    );
  }
  return active;
}

export function assertNoPendingWithdrawals(pubkey: string, v: ApiValidator, ctx: ExitContext) {
  if ((ctx.pending.get(v.index) ?? 0n) > 0n) {
    throw refuse(
      "PENDING_PARTIAL_WITHDRAWALS",
      pubkey,
      "has partial withdrawals waiting in the queue; the chain ignores an exit until they are paid",
    );
  }
}

/**
 * What every exit path reads and signs with: the organisation's validators and their head state, the exit
 * rules' inputs and the operator's signature. Every request is checked against the node's head state first,
 * so what the chain would ignore is refused with a clear 4xx.
 */
export function createExitChecks(deps: ExitDeps) {
  const { repo, beacon, network } = deps;
  const cipher = createKeyCipher(deps.eth.keyEncryptionKey);

  /** The organisation's validators (404 for any other, unknown or foreign alike) with their head state. */
  async function owned(auth: StakingAuth, pubkeys: string[]): Promise<Map<string, Owned>> {
    for (const p of pubkeys) assertInScope(auth, "ethereum", p, "validator");
    const rows = await repo.findOrganisationValidators(auth.organisationId, pubkeys);
    const byPubkey = new Map(rows.map((r) => [r.pubkey, r]));
    const missing = pubkeys.filter((p) => !byPubkey.has(p));
    if (missing.length) {
      throw new AppError("VALIDATOR_NOT_FOUND", `No such validator: ${missing.join(", ")}`, {
        details: missing.map((p) => ({ field: "pubkeys", message: `${p}: no such validator` })),
      });
    }
    const onChain = await beacon.validators("head", pubkeys);
    const chain = new Map(onChain.map((v) => [v.validator.pubkey.toLowerCase(), v]));
    return new Map(rows.map((row) => [row.pubkey, { row, chain: chain.get(row.pubkey) }]));
  }

  /** The epoch the node's next block is in, and the exit rules' inputs read once per request. */
  async function chainContext(): Promise<ExitContext> {
    const [spec, head, period, partials] = await Promise.all([
      beacon.spec(),
      beacon.headSlot(),
      beacon.shardCommitteePeriod(),
      beacon.pendingPartialWithdrawals("head"),
    ]);
    const pending = new Map<string, bigint>();
    for (const w of partials)
      pending.set(w.validator_index, (pending.get(w.validator_index) ?? 0n) + BigInt(w.amount));
    const time = new Date((spec.genesisTime + (head + 1) * spec.secondsPerSlot) * 1000);
    return { epoch: Math.floor((head + 1) / spec.slotsPerEpoch), period, pending, time };
  }

  function sign(row: ValidatorRow, validatorIndex: number, epoch: number): SignedVoluntaryExit {
    const sk = cipher.decrypt(row.encryptedSigningKey, row.pubkey);
    const key = blsKeyFromSecret(BigInt(`0x${Buffer.from(sk).toString("hex")}`));
    return buildVoluntaryExit({ key, validatorIndex, epoch, network });
  }

  /** The EIP-55 sender of a validator's EL requests; provisioned credentials are always 0x01 or 0x02. */
  const requestSender = (row: ValidatorRow) =>
    toChecksumAddress(withdrawalAddressOf(row.withdrawalCredentials) as string);

  return { owned, chainContext, sign, requestSender };
}

export type ExitChecks = ReturnType<typeof createExitChecks>;
