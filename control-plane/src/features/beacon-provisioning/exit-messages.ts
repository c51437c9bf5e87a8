import { randomUUID } from "node:crypto";
import { CompactEncrypt, calculateJwkThumbprint, importJWK, type JWK } from "jose";
import { AppError } from "../../errors.ts";
import type { StakingAuth } from "../../http/api-key-auth.ts";
import { type ExitChecks, type ExitDeps, FAR_FUTURE, type Owned, refuse } from "./exit-checks.ts";

/** The recipient's public key for ECDH-ES, or a 400 naming why it is not one. */
async function recipientKeyOf(recipientKey: JWK) {
  try {
    return await importJWK(recipientKey, "ECDH-ES");
  } catch (err) {
    throw new AppError("VALIDATION_ERROR", "Invalid recipientKey: not a usable ECDH-ES public key", {
      details: [{ field: "recipientKey", message: (err as Error).message.slice(0, 200) }],
      cause: err,
    });
  }
}

/** A validator the chain has queued or activated and that is not exiting: one there is an exit to sign for. */
function assertSignable(pubkey: string, v: Owned["chain"]) {
  if (
    !v ||
    (v.validator.exit_epoch ?? FAR_FUTURE) !== FAR_FUTURE ||
    !/^(pending_queued|active_ongoing)$/.test(v.status)
  )
    throw refuse(
      "VALIDATOR_NOT_ACTIVE",
      pubkey,
      `is ${v?.status ?? "not on the beacon chain"}: no exit to sign`,
    );
  return v;
}

/**
 * Pre-signed exits for the client to broadcast whenever it wants (EIP-7044: valid on every later fork), as
 * one compact JWE (ECDH-ES, A256GCM) to the client's public key: the signatures never leave in clear. Needs
 * a validator index, so only validators the beacon chain has seen; an audit row per hand-out.
 */
export function createExitMessages(deps: ExitDeps, checks: ExitChecks) {
  return async function exitMessages(auth: StakingAuth, pubkeys: string[], recipientKey: JWK) {
    const key = await recipientKeyOf(recipientKey);
    await deps.limit(auth.organisationId);
    const validators = await checks.owned(auth, pubkeys);
    const ctx = await checks.chainContext();
    const exits = pubkeys.map((p) => {
      const o = validators.get(p) as Owned;
      const index = Number(assertSignable(p, o.chain).index);
      return {
        validatorAddress: p,
        validatorIndex: index,
        signedVoluntaryExit: checks.sign(o.row, index, ctx.epoch),
      };
    });
    const thumbprint = await calculateJwkThumbprint(recipientKey);
    const jwe = await new CompactEncrypt(
      new TextEncoder().encode(JSON.stringify({ network: deps.network.name, exits })),
    )
      .setProtectedHeader({ alg: "ECDH-ES", enc: "A256GCM", cty: "application/json", kid: thumbprint })
      .encrypt(key);
    const id = randomUUID();
    await deps.repo.insertExitHandout({
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
  };
}
