import { randomUUID } from "node:crypto";
import { CompactEncrypt, calculateJwkThumbprint, importJWK, type JWK } from "jose";
import type { Hex } from "viem";
import { withdrawalAddressOf } from "../../chains/beacon.ts";
import type { BeaconNetwork } from "../../chains/beacon-networks.ts";
import {
  CONSOLIDATION_REQUEST_CONTRACT,
  consolidationRequestTx,
  WITHDRAWAL_REQUEST_CONTRACT,
  withdrawalRequestTx,
} from "../../chains/el-requests.ts";
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

const FAR_FUTURE = "18446744073709551615";
const MIN_ACTIVATION_GWEI = 32_000_000_000n;

/** One validator of the organisation with its state at the node's head. */
interface Owned {
  row: ValidatorRow;
  chain: ApiValidator | undefined;
}

const refuse = (code: ErrorCode, pubkey: string, message: string, field = "pubkeys") =>
  new AppError(code, `${pubkey}: ${message}`, { details: [{ field, message: `${pubkey}: ${message}` }] });

/**
 * The end of a validator's life and the moves of its stake (issue 27): voluntary exits the operator signs
 * with the key it holds and sends to the beacon node's pool, the same exits handed to the client encrypted,
 * and the EIP-7002 / EIP-7251 transactions the withdrawal address signs. Every request is checked against
 * the node's head state first, so what the chain would ignore is refused here with a clear 4xx.
 */
export function createExitService(deps: {
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
  /** beacon-data's port: the off-chain lifecycle steps EXIT_REQUESTED and EXIT_SENT. */
  tracking: Pick<Tracking, "recordStatus">;
  /** Per-organisation bound of the calls that sign (ETH_EXIT_SIGNING_PER_MINUTE); throws RATE_LIMITED. */
  limit: (organisationId: string) => Promise<unknown>;
  logger: Logger;
}) {
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
  async function chainContext() {
    const [spec, head, period, partials] = await Promise.all([
      beacon.spec(),
      beacon.headSlot(),
      beacon.shardCommitteePeriod(),
      beacon.pendingPartialWithdrawals("head"),
    ]);
    const pending = new Map<string, bigint>();
    for (const w of partials)
      pending.set(w.validator_index, (pending.get(w.validator_index) ?? 0n) + BigInt(w.amount));
    // The history's times are the chain's (slot times): the next slot's, as the request is for it.
    const time = new Date((spec.genesisTime + (head + 1) * spec.secondsPerSlot) * 1000);
    return { epoch: Math.floor((head + 1) / spec.slotsPerEpoch), period, pending, time };
  }
  type Context = Awaited<ReturnType<typeof chainContext>>;

  /** Active, not exiting, active for SHARD_COMMITTEE_PERIOD: what every exit path asserts (Electra). */
  function assertExitable(pubkey: string, v: ApiValidator | undefined, ctx: Context): ApiValidator {
    if (v?.status !== "active_ongoing" || (v.validator.exit_epoch ?? FAR_FUTURE) !== FAR_FUTURE) {
      throw refuse(
        "VALIDATOR_NOT_ACTIVE",
        pubkey,
        `is ${v?.status ?? "not on the beacon chain"}, not active`,
      );
    }
    const from = Number(v.validator.activation_epoch ?? 0) + ctx.period;
    if (ctx.epoch < from) {
      throw refuse(
        "VALIDATOR_NOT_EXITABLE_YET",
        pubkey,
        `must have been active for ${ctx.period} epochs (SHARD_COMMITTEE_PERIOD): exitable from epoch ${from}`,
      );
    }
    return v;
  }

  function assertNoPendingWithdrawals(pubkey: string, v: ApiValidator, ctx: Context) {
    if ((ctx.pending.get(v.index) ?? 0n) > 0n) {
      throw refuse(
        "PENDING_PARTIAL_WITHDRAWALS",
        pubkey,
        "has partial withdrawals waiting in the queue; the chain ignores an exit until they are paid",
      );
    }
  }

  function sign(row: ValidatorRow, validatorIndex: number, epoch: number): SignedVoluntaryExit {
    const sk = cipher.decrypt(row.encryptedSigningKey, row.pubkey);
    const key = blsKeyFromSecret(BigInt(`0x${Buffer.from(sk).toString("hex")}`));
    return buildVoluntaryExit({ key, validatorIndex, epoch, network });
  }

  /** The EIP-55 sender of a validator's EL requests; provisioned credentials are always 0x01 or 0x02. */
  const requestSender = (row: ValidatorRow) =>
    toChecksumAddress(withdrawalAddressOf(row.withdrawalCredentials) as string);

  return {
    /**
     * The operator's exit of the organisation's validators: EXIT_REQUESTED for all once they pass the chain's
     * checks, then each exit signed and sent to the node's pool, EXIT_SENT as the node accepts it. Synchronous:
     * at most 100 signatures (0.5 s for 100 with their self-check, measured under load) and node calls; a validator the node refused stays
     * EXIT_REQUESTED with the node's reason, and a new request retries it.
     */
    async exit(auth: StakingAuth, pubkeys: string[]) {
      await deps.limit(auth.organisationId);
      const validators = await owned(auth, pubkeys);
      const ctx = await chainContext();
      const checked = pubkeys.map((p) => {
        const v = assertExitable(p, validators.get(p)?.chain, ctx);
        assertNoPendingWithdrawals(p, v, ctx);
        return { pubkey: p, row: validators.get(p)?.row as ValidatorRow, index: Number(v.index) };
      });
      await deps.tracking.recordStatus(pubkeys, "EXIT_REQUESTED", ctx.time);
      const results = [];
      for (const c of checked) {
        const exit = sign(c.row, c.index, ctx.epoch);
        const sent = await beacon.submitVoluntaryExit(exit);
        if (sent.accepted) await deps.tracking.recordStatus([c.pubkey], "EXIT_SENT", ctx.time);
        results.push({
          validatorAddress: c.pubkey,
          validatorIndex: c.index,
          epoch: ctx.epoch,
          status: sent.accepted ? ("EXIT_SENT" as const) : ("EXIT_REQUESTED" as const),
          ...(sent.accepted ? {} : { reason: sent.message }),
        });
      }
      const sent = results.filter((r) => r.status === "EXIT_SENT").length;
      deps.logger.info(
        { organisationId: auth.organisationId, validators: results.length, sent },
        "voluntary exits sent",
      );
      return { results };
    },

    /**
     * Pre-signed exits for the client to broadcast whenever it wants (EIP-7044: valid on every later fork),
     * as one compact JWE (ECDH-ES, A256GCM) to the client's public key: the signatures never leave in clear.
     * Needs a validator index, so only validators the beacon chain has seen; an audit row per hand-out.
     */
    async exitMessages(auth: StakingAuth, pubkeys: string[], recipientKey: JWK) {
      let key: Awaited<ReturnType<typeof importJWK>>;
      try {
        key = await importJWK(recipientKey, "ECDH-ES");
      } catch (err) {
        throw new AppError("VALIDATION_ERROR", "Invalid recipientKey: not a usable ECDH-ES public key", {
          details: [{ field: "recipientKey", message: (err as Error).message.slice(0, 200) }],
          cause: err,
        });
      }
      await deps.limit(auth.organisationId);
      const validators = await owned(auth, pubkeys);
      const ctx = await chainContext();
      const exits = pubkeys.map((p) => {
        const v = validators.get(p)?.chain;
        if (
          !v ||
          (v.validator.exit_epoch ?? FAR_FUTURE) !== FAR_FUTURE ||
          !/^(pending_queued|active_ongoing)$/.test(v.status)
        )
          throw refuse(
            "VALIDATOR_NOT_ACTIVE",
            p,
            `is ${v?.status ?? "not on the beacon chain"}: no exit to sign`,
          );
        const index = Number(v.index);
        return {
          validatorAddress: p,
          validatorIndex: index,
          signedVoluntaryExit: sign(validators.get(p)?.row as ValidatorRow, index, ctx.epoch),
        };
      });
      const thumbprint = await calculateJwkThumbprint(recipientKey);
      const jwe = await new CompactEncrypt(
        new TextEncoder().encode(JSON.stringify({ network: network.name, exits })),
      )
        .setProtectedHeader({ alg: "ECDH-ES", enc: "A256GCM", cty: "application/json", kid: thumbprint })
        .encrypt(key);
      const id = randomUUID();
      await repo.insertExitHandout({
        id,
        organisationId: auth.organisationId,
        keyId: auth.keyId,
        pubkeys,
        recipientKeyThumbprint: thumbprint,
        epoch: ctx.epoch,
      });
      deps.logger.info(
        { organisationId: auth.organisationId, handoutId: id, validators: pubkeys.length },
        "pre-signed exits handed out",
      );
      return {
        handoutId: id,
        recipientKeyThumbprint: thumbprint,
        epoch: ctx.epoch,
        validatorsCount: pubkeys.length,
        encryptedExits: jwe,
      };
    },

    /**
     * EIP-7002 requests: a full exit (no amount) of any execution-credentials validator, or a partial
     * withdrawal of a 0x02 one that leaves at least 32 ETH (the chain caps it at balance − 32 ETH − pending,
     * so asking for more is refused rather than silently cut).
     */
    async withdrawalRequests(auth: StakingAuth, requests: { pubKey: string; amount?: bigint | undefined }[]) {
      const pubkeys = requests.map((r) => r.pubKey);
      const validators = await owned(auth, pubkeys);
      const ctx = await chainContext();
      const items = requests.map((r) => {
        const o = validators.get(r.pubKey) as Owned;
        const v = assertExitable(r.pubKey, o.chain, ctx);
        const full = !r.amount;
        if (full) assertNoPendingWithdrawals(r.pubKey, v, ctx);
        else {
          if (!v.validator.withdrawal_credentials.startsWith("0x02")) {
            throw refuse(
              "VALIDATOR_NOT_COMPOUNDING",
              r.pubKey,
              "partial withdrawals need 0x02 credentials; switch the validator first",
            );
          }
          const available = BigInt(v.balance) - MIN_ACTIVATION_GWEI - (ctx.pending.get(v.index) ?? 0n);
          if ((r.amount as bigint) > available) {
            throw refuse(
              "PARTIAL_WITHDRAWAL_TOO_LARGE",
              r.pubKey,
              `at most ${available > 0n ? available : 0n} Gwei can be withdrawn: the balance may not go below 32 ETH`,
              "requests.amount",
            );
          }
        }
        return { o, v, full, amount: r.amount ?? 0n };
      });
      const fee = await deps.execution.requestFee(WITHDRAWAL_REQUEST_CONTRACT as Hex);
      return {
        results: items.map(({ o, v, full, amount }) => ({
          validatorAddress: o.row.pubkey,
          validatorIndex: Number(v.index),
          type: full ? ("FULL_WITHDRAWAL" as const) : ("PARTIAL_EXIT" as const),
          amount: amount.toString(),
          ...withdrawalRequestTx({
            from: requestSender(o.row),
            pubkey: o.row.pubkey,
            amountGwei: amount,
            feeWei: fee,
          }),
        })),
      };
    },

    /**
     * EIP-7251 requests: source = target switches a 0x01 validator to compounding (SWITCH); otherwise the
     * source consolidates into a 0x02 target of the same organisation (CONSOLIDATE).
     */
    async consolidations(auth: StakingAuth, requests: { sourcePubKey: string; targetPubKey: string }[]) {
      const pubkeys = [...new Set(requests.flatMap((r) => [r.sourcePubKey, r.targetPubKey]))];
      const validators = await owned(auth, pubkeys);
      const ctx = await chainContext();
      const items = requests.map((r) => {
        const source = validators.get(r.sourcePubKey) as Owned;
        const switching = r.sourcePubKey === r.targetPubKey;
        const s = source.chain;
        if (switching) {
          if (s?.status !== "active_ongoing" || (s.validator.exit_epoch ?? FAR_FUTURE) !== FAR_FUTURE)
            throw refuse(
              "VALIDATOR_NOT_ACTIVE",
              r.sourcePubKey,
              `is ${s?.status ?? "not on the beacon chain"}, not active`,
            );
          if (!s.validator.withdrawal_credentials.startsWith("0x01"))
            throw refuse(
              "ALREADY_COMPOUNDING",
              r.sourcePubKey,
              "already has 0x02 credentials",
              "requests.sourcePubKey",
            );
        } else {
          const v = assertExitable(r.sourcePubKey, s, ctx);
          assertNoPendingWithdrawals(r.sourcePubKey, v, ctx);
          const t = validators.get(r.targetPubKey)?.chain;
          if (t?.status !== "active_ongoing" || (t.validator.exit_epoch ?? FAR_FUTURE) !== FAR_FUTURE)
            throw refuse(
              "VALIDATOR_NOT_ACTIVE",
              r.targetPubKey,
              `(target) is ${t?.status ?? "not on the beacon chain"}, not active`,
            );
          if (!t.validator.withdrawal_credentials.startsWith("0x02"))
            throw refuse(
              "TARGET_NOT_COMPOUNDING",
              r.targetPubKey,
              "a consolidation target needs 0x02 credentials; switch it first",
              "requests.targetPubKey",
            );
        }
        return { source, switching, target: r.targetPubKey, index: Number(s?.index) };
      });
      const fee = await deps.execution.requestFee(CONSOLIDATION_REQUEST_CONTRACT as Hex);
      return {
        results: items.map(({ source, switching, target, index }) => ({
          sourceValidatorAddress: source.row.pubkey,
          targetValidatorAddress: target,
          sourceValidatorIndex: index,
          type: switching ? ("SWITCH" as const) : ("CONSOLIDATE" as const),
          ...consolidationRequestTx({
            from: requestSender(source.row),
            source: source.row.pubkey,
            target,
            feeWei: fee,
          }),
        })),
      };
    },
  };
}

export type ExitService = ReturnType<typeof createExitService>;
