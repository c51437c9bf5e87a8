import { provisionStatus } from "@stake/db/schema/provisioning";
import { DECIMALS, parseUnits } from "@stake/db/units";
import { z } from "zod";
import { blsPubkey } from "../../chains/beacon.ts";
import { checkedEvmAddress, GWEI_PER_ETH as GWEI } from "../../chains/evm.ts";
import { optionallyPagedQuery } from "../../http/paging.ts";
import { LIFECYCLE_STATUSES } from "../beacon-data/lifecycle.ts";

const address = checkedEvmAddress();
const optionalAddress = address.nullable().optional();

/** ETH decimal given as a JSON number or string → Gwei; never through float arithmetic. */
export const EthAmount = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const s = typeof v === "number" ? String(v) : v.trim();
  // At most 6 integer digits: no stake amount reaches a million ETH, and the bound keeps the number exact.
  if (/^\d{1,6}(\.\d+)?$/.test(s)) {
    try {
      return parseUnits(s, DECIMALS.gwei);
    } catch {}
  }
  ctx.addIssue({ code: "custom", message: "must be an ETH amount with at most 9 decimals (whole Gwei)" });
  return z.NEVER;
});

export const ProvisionRequest = z.object({
  attributes: z
    .object({
      withdrawalAddress: address,
      controllerAddress: optionalAddress,
      feeRecipient: optionalAddress,
      validatorsCount: z.number().int().min(1).max(100),
      batch: z.boolean(),
      compounding: z.boolean().optional(),
      amountPerValidator: EthAmount.optional(),
    })
    .superRefine((a, ctx) => {
      const amount = a.amountPerValidator;
      if (amount === undefined) return;
      if (!a.compounding && amount !== 32n * GWEI) {
        ctx.addIssue({
          code: "custom",
          path: ["amountPerValidator"],
          message: "0x01 credentials (compounding false) take exactly 32 ETH",
        });
      } else if (amount < 32n * GWEI || amount > 2048n * GWEI) {
        ctx.addIssue({
          code: "custom",
          path: ["amountPerValidator"],
          message: "0x02 credentials take 32 to 2048 ETH",
        });
      }
    }),
});

export type ProvisionRequest = z.output<typeof ProvisionRequest>;

const uuid = z.uuid("must be a UUID");

export const ProvisionQuery = z.object({
  provisionId: uuid,
  ...optionallyPagedQuery,
});

export type ProvisionQuery = z.output<typeof ProvisionQuery>;

export const ListQuery = z.object(optionallyPagedQuery);
export type ListQuery = z.output<typeof ListQuery>;

export const AddStakeRequest = z.object({
  pubKey: blsPubkey(),
  amount: EthAmount.refine((g) => g >= GWEI, "must be at least 1 ETH"),
});

export const IdempotencyKey = z.string().min(1).max(255);

const Hex = z.string().regex(/^0x[0-9a-f]*$/i);
const Timestamp = z.iso.datetime();
const PageEnvelope = {
  page: z.number().int().nullable(),
  per_page: z.number().int().nullable(),
  total: z.number().int(),
  pages: z.number().int().nullable(),
};
const ValidatorStatus = z.enum(LIFECYCLE_STATUSES);
const ProvisionHeader = {
  batch: z.boolean(),
  withdrawal_credentials: Hex,
  validatorsCount: z.number().int(),
  clientId: z.string(),
  provisionId: z.uuid(),
};
const Validator = {
  validatorIndex: z.number().int().nullable(),
  validatorAddress: Hex,
  amount: z.number().int(),
  created: Timestamp,
  status: ValidatorStatus,
};

export const ProvisionResponse = z.object({
  result: z.object({
    created: Timestamp,
    status: z.literal("CREATED").meta({
      description: "Always CREATED: the spec's acknowledgement of the request, not the provision's state",
    }),
    provisionStatus: z.enum(provisionStatus.enumValues).meta({
      description:
        "The provision's real state (our addition): IN_PROGRESS until its job has made the validators, then CREATED or FAILED",
    }),
    provisionId: z.uuid(),
    validatorsCount: z.number().int(),
    withdrawalAddress: z.string(),
    controllerAddress: z.string().nullable(),
    feeRecipient: z.string().nullable(),
  }),
});
export const ValidatorsResponse = z.object({
  ...ProvisionHeader,
  depositInput: Hex.nullable(),
  to: z.string().nullable(),
  value: z.string().nullable(),
  withdrawalAddress: z.string(),
  provisionStatus: z.enum(provisionStatus.enumValues),
  reason: z.string().nullable().optional(),
  results: z.array(
    z.object({
      ...Validator,
      depositInput: Hex.nullable(),
      to: z.string().nullable(),
      value: z.string().nullable(),
    }),
  ),
  ...PageEnvelope,
});
export const DepositDetailsResponse = z.object({
  ...ProvisionHeader,
  controllerAddress: z.string().nullable(),
  feeRecipient: z.string().nullable(),
  results: z.array(
    z.object({
      ...Validator,
      signature: z.string(),
      pubkey: z.string(),
      withdrawal_credentials: z.string(),
      deposit_message_root: z.string(),
      deposit_data_root: z.string(),
      fork_version: z.string(),
      network_name: z.string(),
    }),
  ),
  ...PageEnvelope,
});
export const AddStakeResponse = z.object({
  validatorAddress: Hex,
  addStakeAmount: z.number().int(),
  depositInput: Hex,
  to: z.string(),
  value: z.string(),
  deposit_data_root: Hex,
  signature: Hex,
});
export const OrganisationValidatorsResponse = z.object({
  results: z.array(
    z.object({
      validatorAddress: Hex,
      validatorIndex: z.number().int().nullable(),
      provisionId: z.uuid(),
      status: ValidatorStatus,
      created: Timestamp,
    }),
  ),
  ...PageEnvelope,
});
export const CountResponse = z.object({
  total: z.number().int(),
  results: z.array(z.object({ status: ValidatorStatus, count: z.number().int() })),
});
