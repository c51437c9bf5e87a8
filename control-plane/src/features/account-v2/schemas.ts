import { idPattern } from "@stake/db/ids";
import { type OrganisationScope, organisationStatus, SCOPE_CHAINS } from "@stake/db/schema/accounts";
import { z } from "zod";
import { blsPubkey } from "../../chains/beacon.ts";
import { checkedEvmAddress } from "../../chains/evm.ts";
import { solanaPubkey } from "../../chains/solana.ts";
import { suiAddress } from "../../chains/sui.ts";
import { noControls } from "../../http/text.ts";

type ScopeChain = (typeof SCOPE_CHAINS)[number];

export const LABEL_MAX_LENGTH = 64;

export const Email = z
  .string()
  .trim()
  .max(254)
  .pipe(z.email({ message: "Must be a valid e-mail address" }))
  .transform((e) => e.toLowerCase());

/** The spec's rule: at least 8 characters with a lowercase letter, an uppercase letter and a digit. */
export const Password = z
  .string()
  .min(8, { message: "Must be at least 8 characters" })
  .max(256, { message: "Must be at most 256 characters" })
  .regex(/[a-z]/, { message: "Must contain a lowercase letter" })
  .regex(/[A-Z]/, { message: "Must contain an uppercase letter" })
  .regex(/[0-9]/, { message: "Must contain a digit" });

/**
 * What each scope list holds, as the areas compare it (`assertInScope` callers): Ethereum's validators are
 * BLS pubkeys and its delegators withdrawal addresses; Hyperliquid and Polygon name EVM accounts; Solana
 * wallets and vote accounts; Sui addresses. An entry no caller could ever present would lock the
 * organisation out of that chain, so each is checked here. Bitcoin has no area yet: free text.
 */
const evm = () => checkedEvmAddress();
export const SCOPE_ADDRESS = {
  ethereum: { validator_addresses: blsPubkey, delegator_addresses: evm },
  hyperliquid: { validator_addresses: evm, delegator_addresses: evm },
  polygon: { validator_addresses: evm, delegator_addresses: evm },
  solana: { validator_addresses: solanaPubkey, delegator_addresses: solanaPubkey },
  sui: { validator_addresses: suiAddress, delegator_addresses: suiAddress },
  bitcoin: { validator_addresses: () => z.string(), delegator_addresses: () => z.string() },
} satisfies Record<
  ScopeChain,
  Record<"validator_addresses" | "delegator_addresses", () => z.ZodType<string, string>>
>;

/** One scope list of `chain`, each entry checked as that list's addresses. */
export const scopeAddressList = (chain: ScopeChain, list: keyof (typeof SCOPE_ADDRESS)[ScopeChain]) =>
  z.array(z.string().trim().min(1).max(128).pipe(SCOPE_ADDRESS[chain][list]())).max(1000);
const ScopeEntry = (chain: ScopeChain) =>
  z.strictObject({
    validator_addresses: scopeAddressList(chain, "validator_addresses"),
    delegator_addresses: scopeAddressList(chain, "delegator_addresses"),
  });

/** Per chain, the addresses the organisation may act for; a chain absent or with empty lists is unrestricted. */
export const Scope = z
  .looseObject(
    Object.fromEntries(SCOPE_CHAINS.map((c) => [c, ScopeEntry(c).optional()])) as {
      [C in ScopeChain]: z.ZodOptional<ReturnType<typeof ScopeEntry>>;
    },
  )
  .superRefine((value, ctx) => {
    for (const chain of Object.keys(value)) {
      if (!(SCOPE_CHAINS as readonly string[]).includes(chain)) {
        ctx.addIssue({
          code: "custom",
          path: [chain],
          message: `Unknown chain; use one of ${SCOPE_CHAINS.join(", ")}`,
        });
      }
    }
  })
  .transform((value) => value as OrganisationScope);

export const SignupRequest = z.object({
  email: Email,
  password: Password,
  org: z
    .string()
    .trim()
    .min(1, { message: "Must not be empty" })
    .max(200)
    .refine(...noControls),
  scope: Scope,
});
export type SignupRequest = z.infer<typeof SignupRequest>;

export const CreateKeyRequest = z.object({
  label: z
    .string()
    .trim()
    .min(1, { message: "Must not be empty" })
    .max(LABEL_MAX_LENGTH, { message: `Must be at most ${LABEL_MAX_LENGTH} characters` })
    .refine(...noControls),
});
export type CreateKeyRequest = z.infer<typeof CreateKeyRequest>;

export const KeyIdParams = z.object({
  keyId: z
    .string()
    .regex(idPattern("apiKey"), { message: "Malformed keyId (expected key_ followed by base58)" }),
});

export const SignupResponse = z.object({ message: z.string() });
export const CreateKeyResponse = z.object({ keyId: z.string(), label: z.string(), apiKey: z.string() });
export const ListKeysResponse = z.object({
  keys: z.array(z.object({ keyId: z.string(), label: z.string(), createdAt: z.iso.datetime() })),
});

/** Our addition: the caller's own organisation, in the sign-up's field names. */
export const OrganisationResponse = z.object({
  id: z.string(),
  org: z.string(),
  email: z.string(),
  status: z.enum(organisationStatus.enumValues),
  scope: z.record(
    z.string(),
    z.object({ validator_addresses: z.array(z.string()), delegator_addresses: z.array(z.string()) }),
  ),
  createdAt: z.iso.datetime(),
});
