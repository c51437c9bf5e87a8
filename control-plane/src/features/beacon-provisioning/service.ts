import { createHash, randomUUID } from "node:crypto";
import type { ProvisionAttributes } from "@stake/db/schema/provisioning";
import { withdrawalCredentials } from "../../chains/beacon.ts";
import type { BeaconNetwork } from "../../chains/beacon-networks.ts";
import { bytesOf, GWEI_PER_ETH, hexOf, toChecksumAddress } from "../../chains/evm.ts";
import type { Config } from "../../config.ts";
import { AppError } from "../../errors.ts";
import { assertInScope, type StakingAuth } from "../../http/api-key-auth.ts";
import { pageEnvelope, pageOrAll } from "../../http/paging.ts";
import { createKeyCipher } from "../../platform/secret-envelope.ts";
import { QUEUES } from "../../queues.ts";
import type { BeaconApi } from "../beacon-data/client.ts";
import { LIFECYCLE_STATUSES } from "../beacon-data/lifecycle.ts";
import type { Tracking } from "../beacon-data/tracking.ts";
import { blsKeyFromSecret } from "./bls.ts";
import { buildDeposit, depositTx, MAX_EFFECTIVE_BALANCE_ELECTRA_GWEI } from "./builder.ts";
import type { ProvisionQueue } from "./jobs.ts";
import {
  beaconFields,
  depositDetailItem,
  type ListedValidator,
  provisionHeader,
  validatorItem,
} from "./present.ts";
import type { ProvisioningRepo, ValidatorRow } from "./repo.ts";
import type { ListQuery, ProvisionQuery, ProvisionRequest } from "./schemas.ts";

const norm = (a: string | null | undefined) => (a ? toChecksumAddress(a) : null);

export function createProvisioningService(deps: {
  repo: ProvisioningRepo;
  queue: ProvisionQueue;
  /** The one Beacon API client (beacon-data's): add-stake reads a validator and the deposit queue. */
  beacon: Pick<BeaconApi, "validator" | "pendingDeposits">;
  eth: Config["eth"];
  network: BeaconNetwork;
  /** beacon-data's port: the lifecycle status and index of the organisation's validators. */
  tracking: Pick<Tracking, "lifecycles" | "countProvisionedByStatus">;
  /** Validators an organisation may hold provisioned but not yet deposited (each holds a signing key). */
  quota: number;
}) {
  const { repo, network } = deps;

  /** The rows with the lifecycle status and index beacon-data keeps (CREATED until it saw more). */
  async function withLifecycle(rows: ValidatorRow[]): Promise<ListedValidator[]> {
    const known = await deps.tracking.lifecycles(rows.map((r) => r.pubkey));
    return rows.map((r) => ({
      ...r,
      status: known.get(r.pubkey)?.status ?? "CREATED",
      validatorIndex: known.get(r.pubkey)?.validatorIndex ?? null,
      beaconStatus: known.get(r.pubkey)?.beaconStatus ?? null,
      beaconStatusHistory: known.get(r.pubkey)?.beaconStatusHistory ?? [],
    }));
  }
  const cipher = createKeyCipher(deps.eth.keyEncryptionKey);

  async function provisionPage(organisationId: string, q: ProvisionQuery) {
    const p = await repo.findProvision(q.provisionId, organisationId);
    if (!p) throw new AppError("PROVISION_NOT_FOUND", "No such provision");
    const a = p.attributes;
    const header = provisionHeader(p, hexOf(withdrawalCredentials(a.withdrawalAddress, a.compounding)));
    return { p, page: pageOrAll(q), done: p.status === "CREATED", header };
  }

  /**
   * Refuses a provision that would leave more than `quota` of the organisation's validators without a
   * deposit: those still being created plus those created that the beacon chain has not seen (CREATED).
   * Checked before the insert: concurrent provisions may each pass, by at most 100 validators each.
   */
  async function assertQuota(organisationId: string, wanted: number): Promise<void> {
    const [inProgress, byStatus] = await Promise.all([
      repo.validatorsInProgress(organisationId),
      deps.tracking.countProvisionedByStatus(organisationId),
    ]);
    const undeposited = inProgress + (byStatus.find((r) => r.status === "CREATED")?.n ?? 0);
    if (undeposited + wanted > deps.quota) {
      throw new AppError(
        "PROVISION_QUOTA_EXCEEDED",
        `The organisation has ${undeposited} validators not yet deposited; at most ${deps.quota} may wait for a deposit`,
      );
    }
  }

  return {
    network,

    /** Stores the provision as IN_PROGRESS and enqueues its job; an Idempotency-Key replay returns the original. */
    async provision(auth: StakingAuth, input: ProvisionRequest["attributes"], idempotencyKey: string | null) {
      assertInScope(auth, "ethereum", input.withdrawalAddress, "delegator");
      const organisationId = auth.organisationId;
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
      // A replay returns the original (or 409 for another body) whatever the quota says now.
      const replay = idempotencyKey && (await repo.findByIdempotencyKey(organisationId, idempotencyKey));
      if (!replay) await assertQuota(organisationId, input.validatorsCount);
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
          QUEUES.provision.name,
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
        // The spec fixes `status: CREATED` as the acknowledgement; the provision's own state is beside it.
        status: "CREATED" as const,
        provisionStatus: row.status,
        provisionId: row.id,
        validatorsCount: row.attributes.validatorsCount,
        withdrawalAddress: row.attributes.withdrawalAddress,
        controllerAddress: row.attributes.controllerAddress,
        feeRecipient: row.attributes.feeRecipient,
      };
    },

    /** The validator objects of a provision; empty until its job has created them (spec rule). */
    async validators(organisationId: string, q: ProvisionQuery) {
      const { p, page, done, header } = await provisionPage(organisationId, q);
      const a = p.attributes;
      const rows = done ? await withLifecycle(await repo.listValidators(p.id, page)) : [];
      return {
        ...header,
        depositInput: a.batch && done ? p.batchDepositInput : null,
        to: a.batch && done ? p.batchTo : null,
        value: a.batch && done ? p.batchValue : null,
        withdrawalAddress: a.withdrawalAddress,
        provisionStatus: p.status,
        ...(p.status === "FAILED" ? { reason: p.reason } : {}),
        results: rows.map((v) => validatorItem(v, a.batch)),
        ...pageEnvelope(page, done ? await repo.countValidators(p.id) : 0),
      };
    },

    async depositDetails(organisationId: string, q: ProvisionQuery) {
      const { p, page, done, header } = await provisionPage(organisationId, q);
      const rows = done ? await withLifecycle(await repo.listValidators(p.id, page)) : [];
      return {
        ...header,
        controllerAddress: p.attributes.controllerAddress,
        feeRecipient: p.attributes.feeRecipient,
        results: rows.map(depositDetailItem),
        ...pageEnvelope(page, done ? await repo.countValidators(p.id) : 0),
      };
    },

    /** Every validator of the organisation with its provision id (not in the spec; README). */
    async organisationValidators(organisationId: string, q: ListQuery) {
      const page = pageOrAll(q);
      const listed = await repo.listOrganisationValidators(organisationId, page);
      const [rows, total] = [await withLifecycle(listed.rows), listed.total];
      return {
        results: rows.map((v) => ({
          validatorAddress: v.pubkey,
          validatorIndex: v.validatorIndex,
          provisionId: v.provisionId,
          status: v.status,
          created: v.createdAt.toISOString(),
          ...beaconFields(v),
        })),
        ...pageEnvelope(page, total),
      };
    },

    /** A properly signed top-up deposit for an active 0x02 validator of the organisation (docs/chains/ethereum.md §3.2). */
    /** `pubkey` is canonical (`0x` + lower-case hex): the request schema made it so. */
    async addStake(auth: StakingAuth, pubkey: string, amountGwei: bigint) {
      assertInScope(auth, "ethereum", pubkey, "validator");
      const organisationId = auth.organisationId;
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
      const pending = (await deps.beacon.pendingDeposits("head"))
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
      const rows = await deps.tracking.countProvisionedByStatus(organisationId);
      const by = new Map(rows.map((r) => [r.status, r.n]));
      const results = LIFECYCLE_STATUSES.map((status) => ({ status, count: by.get(status) ?? 0 }));
      return { total: results.reduce((a, r) => a + r.count, 0), results };
    },
  };
}

export type ProvisioningService = ReturnType<typeof createProvisioningService>;
