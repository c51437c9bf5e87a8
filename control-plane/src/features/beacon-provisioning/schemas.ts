import { x25519 } from "@noble/curves/ed25519.js";
import { provisionStatus } from "@stake/db/schema/provisioning";
import { DECIMALS, parseUnits } from "@stake/db/units";
import type { JWK } from "jose";
import { z } from "zod";
import { blsPubkey } from "../../chains/beacon.ts";
import { checkedEvmAddress, GWEI_PER_ETH as GWEI } from "../../chains/evm.ts";
import { optionallyPagedQuery } from "../../http/paging.ts";
import { BeaconStatus, BeaconStatusHistory, LIFECYCLE_STATUSES } from "../beacon-data/lifecycle.ts";

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
/** Our addition: the Beacon API status and each one reached with its epoch (beacon-data's list has the same). */
const Beacon = {
  beaconStatus: BeaconStatus.nullable(),
  beaconStatusHistory: BeaconStatusHistory,
};
const Validator = {
  validatorIndex: z.number().int().nullable(),
  validatorAddress: Hex,
  amount: z.number().int(),
  created: Timestamp,
  status: ValidatorStatus,
  ...Beacon,
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
      ...Beacon,
    }),
  ),
  ...PageEnvelope,
});
export const CountResponse = z.object({
  total: z.number().int(),
  results: z.array(z.object({ status: ValidatorStatus, count: z.number().int() })),
});

/** 1–100 distinct validators of the organisation (pubkeys canonical: 0x + lower-case hex). */
const Pubkeys = z
  .array(blsPubkey())
  .min(1)
  .max(100)
  .refine((a) => new Set(a).size === a.length, "must not repeat a validator");

export const ExitRequest = z.object({ pubkeys: Pubkeys });

/**
 * Whether an X25519 public key (base64url) is 32 bytes and not of low order: with a low-order point every
 * shared secret is all zeros, which RFC 7748 §6.1 tells a party to refuse and the encryption does (it
 * threw, a 500). One Diffie-Hellman with a throwaway scalar finds it (noble refuses the all-zero result).
 */
function isUsableX25519(x: string): boolean {
  const bytes = Buffer.from(x, "base64url");
  if (bytes.length !== 32) return false;
  try {
    x25519.getSharedSecret(x25519.utils.randomSecretKey(), bytes);
    return true;
  } catch {
    return false;
  }
}

/**
 * The client's public key as a JWK: EC (P-256, P-384, P-521) or OKP (X25519), the curves ECDH-ES takes. A
 * JWK carrying a private part (`d`) is refused: the client must never send us its private key.
 */
export const RecipientKey = z
  .object({
    kty: z.enum(["EC", "OKP"]),
    crv: z.enum(["P-256", "P-384", "P-521", "X25519"]),
    x: z.string().regex(/^[A-Za-z0-9_-]+$/, "must be base64url"),
    y: z
      .string()
      .regex(/^[A-Za-z0-9_-]+$/, "must be base64url")
      .optional(),
    d: z.undefined({ error: "must be the public key only (no d)" }).optional(),
  })
  .refine((k) => (k.kty === "OKP") === (k.crv === "X25519"), "kty and crv do not match")
  .refine((k) => (k.kty === "EC") === (k.y !== undefined), "an EC key needs y, an OKP key has none")
  .refine((k) => k.crv !== "X25519" || isUsableX25519(k.x), {
    path: ["x"],
    message: "must be a 32-byte X25519 public key of full order (RFC 7748 §6.1)",
  })
  .transform((k): JWK => ({ kty: k.kty, crv: k.crv, x: k.x, ...(k.y ? { y: k.y } : {}) }));

export const ExitMessagesRequest = z.object({ pubkeys: Pubkeys, recipientKey: RecipientKey });

export const WithdrawalRequestsRequest = z.object({
  requests: z
    .array(
      z.object({
        pubKey: blsPubkey(),
        /** Absent or 0: a full exit; else a partial withdrawal (0x02 only), ETH with at most 9 decimals. */
        amount: EthAmount.optional(),
      }),
    )
    .min(1)
    .max(100)
    .refine((a) => new Set(a.map((r) => r.pubKey)).size === a.length, "must not repeat a validator"),
});

export const ConsolidationsRequest = z.object({
  requests: z
    .array(z.object({ sourcePubKey: blsPubkey(), targetPubKey: blsPubkey() }))
    .min(1)
    .max(100)
    .refine(
      (a) => new Set(a.map((r) => r.sourcePubKey)).size === a.length,
      "must not repeat a source validator",
    ),
});

export const ExitResponse = z.object({
  results: z.array(
    z.object({
      validatorAddress: Hex,
      validatorIndex: z.number().int(),
      epoch: z.number().int().meta({ description: "The exit message's epoch (the node's current epoch)" }),
      status: z.enum(["EXIT_SENT", "EXIT_REQUESTED"]).meta({
        description:
          "EXIT_SENT once the beacon node accepted the signed exit; EXIT_REQUESTED if it refused it (see reason)",
      }),
      reason: z.string().optional(),
    }),
  ),
});

export const ExitMessagesResponse = z.object({
  handoutId: z.uuid(),
  recipientKeyThumbprint: z
    .string()
    .meta({ description: "RFC 7638 thumbprint of recipientKey (the JWE's kid)" }),
  epoch: z.number().int(),
  validatorsCount: z.number().int(),
  encryptedExits: z.string().meta({
    description:
      'Compact JWE (alg ECDH-ES, enc A256GCM) whose plaintext is {"network", "exits": [{validatorAddress, validatorIndex, signedVoluntaryExit}]}',
  }),
});

const UnsignedTx = {
  from: z.string().meta({ description: "The withdrawal address: the only sender the beacon chain honours" }),
  to: z.string(),
  data: Hex,
  value: z.string().meta({ description: "The system contract's fee at build time, in wei" }),
};

export const WithdrawalRequestsResponse = z.object({
  results: z.array(
    z.object({
      validatorAddress: Hex,
      validatorIndex: z.number().int(),
      type: z.enum(["FULL_WITHDRAWAL", "PARTIAL_EXIT"]),
      amount: z.string().meta({ description: "Gwei; 0 for a full exit" }),
      ...UnsignedTx,
    }),
  ),
});

export const ConsolidationsResponse = z.object({
  results: z.array(
    z.object({
      sourceValidatorAddress: Hex,
      targetValidatorAddress: Hex,
      sourceValidatorIndex: z.number().int(),
      type: z.enum(["CONSOLIDATE", "SWITCH"]),
      ...UnsignedTx,
    }),
  ),
});
