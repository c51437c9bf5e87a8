import { z } from "zod";
import { isEthAddress } from "./address.ts";

const address = z.string().refine(isEthAddress, "must be a 0x address, lower-case or EIP-55 checksummed");
const optionalAddress = address.nullable().optional();

/** ETH decimal given as a JSON number or string → Gwei; never through float arithmetic. */
export const EthAmount = z.union([z.number(), z.string()]).transform((v, ctx) => {
  const s = typeof v === "number" ? String(v) : v.trim();
  const m = /^(\d{1,6})(?:\.(\d{1,9}))?$/.exec(s);
  if (!m) {
    ctx.addIssue({ code: "custom", message: "must be an ETH amount with at most 9 decimals (whole Gwei)" });
    return z.NEVER;
  }
  return BigInt(m[1] ?? "0") * 1_000_000_000n + BigInt((m[2] ?? "").padEnd(9, "0"));
});

const GWEI = 1_000_000_000n;

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
const pageNumber = z.coerce.number().int().min(1);

export const ProvisionQuery = z.object({
  provisionId: uuid,
  page: pageNumber.optional(),
  per_page: pageNumber.max(100).optional(),
});

export const ListQuery = z.object({
  page: pageNumber.optional(),
  per_page: pageNumber.max(100).optional(),
});

export const AddStakeRequest = z.object({
  pubKey: z.string().regex(/^(0x)?[0-9a-fA-F]{96}$/, "must be a 48-byte hex BLS public key"),
  amount: EthAmount.refine((g) => g >= GWEI, "must be at least 1 ETH"),
});

export const IdempotencyKey = z.string().min(1).max(255);
