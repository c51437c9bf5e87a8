import { createHash, randomUUID } from "node:crypto";
import type { ProvisionAttributes } from "@stake/db/schema/provisioning";
import type { Queue } from "bullmq";
import type { Config } from "../../config.ts";
import { AppError } from "../../errors.ts";
import { toChecksumAddress } from "./address.ts";
import { blsKeyFromSecret } from "./bls.ts";
import {
  buildDeposit,
  bytesOf,
  depositTx,
  GWEI_PER_ETH,
  MAX_EFFECTIVE_BALANCE_ELECTRA_GWEI,
} from "./builder.ts";
import type { BeaconClient } from "./client.ts";
import { PROVISION_QUEUE, type ProvisionJobData, resolveNetwork } from "./job.ts";
import { createKeyCipher } from "./key-encryption.ts";
import { type ProvisioningRepo, VALIDATOR_STATUSES } from "./repo.ts";
import type { ProvisionRequest } from "./schemas.ts";

const norm = (a: string | null | undefined) => (a ? toChecksumAddress(a) : null);

export function createProvisioningService(deps: {
  repo: ProvisioningRepo;
  queue: Queue<ProvisionJobData>;
  beacon: BeaconClient;
  eth: Config["eth"];
}) {
  const { repo } = deps;
  const network = resolveNetwork(deps.eth);
  const cipher = createKeyCipher(deps.eth.keyEncryptionKey);

  return {
    network,

    /** Stores the provision as IN_PROGRESS and enqueues its job; an Idempotency-Key replay returns the original. */
    async provision(
      organisationId: string,
      input: ProvisionRequest["attributes"],
      idempotencyKey: string | null,
    ) {
      const attributes: ProvisionAttributes = {
        withdrawalAddress: toChecksumAddress(input.withdrawalAddress),
        controllerAddress: norm(input.controllerAddress),
        feeRecipient: norm(input.feeRecipient),
        validatorsCount: input.validatorsCount,
        batch: input.batch,
        compounding: input.compounding ?? false,
        amountPerValidatorGwei: (input.amountPerValidator ?? 32n * GWEI_PER_ETH).toString(),
      };
      const requestHash = createHash("sha256").update(JSON.stringify(attributes)).digest("hex");
      const { row, created } = await repo.insertProvision({
        id: randomUUID(),
        organisationId,
        attributes,
        network: network.name,
        idempotencyKey,
        requestHash,
      });
      if (!created && row.requestHash !== requestHash) {
        throw new AppError(
          "IDEMPOTENCY_KEY_REUSED",
          "Idempotency-Key was already used with a different request",
        );
      }
      // jobId = provisionId: a replay (or a crash between insert and add) re-adds the same job, never a second one.
      if (row.status === "IN_PROGRESS") {
        await deps.queue.add(
          PROVISION_QUEUE,
          { provisionId: row.id },
          {
            jobId: row.id,
            attempts: 3,
            backoff: { type: "exponential", delay: 500 },
            removeOnComplete: 1000,
            removeOnFail: 5000,
          },
        );
      }
      return {
        created: row.createdAt.toISOString(),
        status: "CREATED" as const,
        provisionId: row.id,
        validatorsCount: row.attributes.validatorsCount,
        withdrawalAddress: row.attributes.withdrawalAddress,
        controllerAddress: row.attributes.controllerAddress,
        feeRecipient: row.attributes.feeRecipient,
      };
    },

    async ownProvision(organisationId: string, provisionId: string) {
      const row = await repo.findProvision(provisionId, organisationId);
      if (!row) throw new AppError("PROVISION_NOT_FOUND", "No such provision");
      return row;
    },

    /** A properly signed top-up deposit for an active 0x02 validator of the organisation (chain notes §3.2). */
    async addStake(organisationId: string, pubKey: string, amountGwei: bigint) {
      const pubkey = `0x${pubKey.replace(/^0x/, "").toLowerCase()}`;
      const v = await repo.findValidatorByPubkey(pubkey);
      if (!v || v.organisationId !== organisationId)
        throw new AppError("VALIDATOR_NOT_FOUND", "No such validator");
      if (!v.withdrawalCredentials.startsWith("0x02")) {
        throw new AppError(
          "VALIDATOR_NOT_COMPOUNDING",
          "Add stake needs 0x02 credentials; switch the validator first",
        );
      }
      const onChain = await deps.beacon.validator(pubkey);
      if (onChain?.status !== "active_ongoing") {
        throw new AppError(
          "VALIDATOR_NOT_ACTIVE",
          `Validator is ${onChain?.status ?? "not on the beacon chain"}, not active`,
        );
      }
      const pending = (await deps.beacon.pendingDeposits())
        .filter((d) => d.pubkey.toLowerCase() === pubkey)
        .reduce((sum, d) => sum + BigInt(d.amount), 0n);
      const after = BigInt(onChain.balance) + pending + amountGwei;
      if (after > MAX_EFFECTIVE_BALANCE_ELECTRA_GWEI) {
        throw new AppError(
          "BALANCE_CAP_EXCEEDED",
          `Balance after add-stake would be ${after} Gwei, above 2048 ETH`,
          {
            details: [
              {
                field: "amount",
                message: `at most ${MAX_EFFECTIVE_BALANCE_ELECTRA_GWEI - after + amountGwei} Gwei can be added`,
              },
            ],
          },
        );
      }
      const sk = cipher.decrypt(v.encryptedSigningKey, v.pubkey);
      const key = blsKeyFromSecret(BigInt(`0x${Buffer.from(sk).toString("hex")}`));
      const deposit = buildDeposit({
        key,
        withdrawalCredentials: bytesOf(v.withdrawalCredentials),
        amountGwei,
        network,
      });
      const tx = depositTx(deposit, network);
      return {
        validatorAddress: v.pubkey,
        addStakeAmount: Number(amountGwei),
        depositInput: tx.data,
        to: tx.to,
        value: tx.value,
        deposit_data_root: deposit.depositDataRoot,
        signature: deposit.signature,
      };
    },

    async countByStatus(organisationId: string) {
      const rows = await repo.countByStatus(organisationId);
      const by = new Map(rows.map((r) => [r.status, r.n]));
      const results = VALIDATOR_STATUSES.map((status) => ({ status, count: by.get(status) ?? 0 }));
      return { total: results.reduce((a, r) => a + r.count, 0), results };
    },
  };
}

export type ProvisioningService = ReturnType<typeof createProvisioningService>;
