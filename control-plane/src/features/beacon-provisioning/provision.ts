import { createHash, randomUUID } from "node:crypto";
import type { Db } from "@stake/db/client";
import { withdrawalCredentials } from "../../chains/beacon.ts";
import type { BeaconNetwork } from "../../chains/beacon-networks.ts";
import type { Config } from "../../config.ts";
import type { Logger } from "../../log.ts";
import { emitEvent } from "../../platform/outbox.ts";
import { createKeyCipher } from "../../platform/secret-envelope.ts";
import type { Tracking } from "../beacon-data/tracking.ts";
import { blsKeyFromSecret } from "./bls.ts";
import { batchDepositTx, buildDeposit, depositTx } from "./builder.ts";
import { createSigningKeyDeriver, secretKeyToBytes } from "./eip2333.ts";
import type { NewValidatorRow, ProvisioningRepo } from "./repo.ts";

/** Identifies a seed in the allocator table without revealing it (a domain-separated hash). */
export function seedFingerprint(seedHex: string): string {
  return createHash("sha256").update("stake:eth-operator-seed:").update(seedHex).digest("hex").slice(0, 16);
}

/**
 * Runs one provision: allocates key indices, derives keys, signs and self-verifies every deposit, and stores
 * them with the provision's CREATED status in ONE transaction, so a failure leaves no validator rows and
 * frees the indices. Idempotent: a provision that is no longer IN_PROGRESS is left as it is.
 */
export function createProvisionProcessor(deps: {
  /** Opens the unit of work (the repository takes its `tx`). */
  db: Db;
  repo: ProvisioningRepo;
  eth: Config["eth"];
  network: BeaconNetwork;
  /** beacon-data's port: tracking starts in the provision's transaction. */
  tracking: Pick<Tracking, "track">;
  logger: Logger;
}) {
  const { network } = deps;
  const cipher = createKeyCipher(deps.eth.keyEncryptionKey);
  const deriveKey = createSigningKeyDeriver(Buffer.from(deps.eth.operatorSeed, "hex"));
  const seedId = seedFingerprint(deps.eth.operatorSeed);

  return async function process(provisionId: string): Promise<void> {
    const provision = await deps.repo.findProvision(provisionId);
    if (provision?.status !== "IN_PROGRESS") return;
    const a = provision.attributes;
    const wc = withdrawalCredentials(a.withdrawalAddress, a.compounding);
    const amountGwei = BigInt(a.amountPerValidatorGwei);

    await deps.db.transaction(async (tx) => {
      const createdAt = new Date();
      const first = await deps.repo.allocateKeyIndices(tx, seedId, a.validatorsCount);
      const rows: NewValidatorRow[] = [];
      const deposits = [];
      for (let position = 0; position < a.validatorsCount; position++) {
        const keyIndex = first + position;
        const sk = deriveKey(keyIndex);
        const deposit = buildDeposit({
          key: blsKeyFromSecret(sk),
          withdrawalCredentials: wc,
          amountGwei,
          network,
        });
        const call = depositTx(deposit, network);
        deposits.push(deposit);
        rows.push({
          id: randomUUID(),
          provisionId,
          organisationId: provision.organisationId,
          position,
          keyIndex,
          pubkey: deposit.pubkey,
          encryptedSigningKey: cipher.encrypt(secretKeyToBytes(sk), deposit.pubkey),
          withdrawalCredentials: deposit.withdrawalCredentials,
          amountGwei: deposit.amount,
          signature: deposit.signature,
          depositMessageRoot: deposit.depositMessageRoot,
          depositDataRoot: deposit.depositDataRoot,
          forkVersion: deposit.forkVersion,
          networkName: deposit.networkName,
          depositInput: call.data,
          depositTo: call.to,
          depositValue: call.value,
          createdAt,
        });
      }
      await deps.repo.insertValidators(tx, rows);
      await deps.tracking.track(
        rows.map((r) => ({
          organisationId: r.organisationId,
          pubkey: r.pubkey,
          feeRecipient: a.feeRecipient,
          withdrawalCredentials: r.withdrawalCredentials,
          createdAt,
        })),
        tx,
      );
      const batch = a.batch ? batchDepositTx(deposits, network) : null;
      await deps.repo.setProvisionStatus(
        provisionId,
        "CREATED",
        {
          batchDepositInput: batch?.data ?? null,
          batchTo: batch?.to ?? null,
          batchValue: batch?.value ?? null,
        },
        tx,
      );
      await emitEvent(tx, {
        owner: { kind: "organisation", id: provision.organisationId },
        type: "provision.completed",
        data: { provisionId, validatorsCount: rows.length, pubkeys: rows.map((r) => r.pubkey) },
      });
    });
    deps.logger.info({ provisionId, validators: a.validatorsCount }, "provision created");
  };
}
