import { idPattern } from "@stake/db/ids";
import { SCOPE_CHAINS } from "@stake/db/schema/accounts";
import { z } from "zod";

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

const AddressList = z.array(z.string().trim().min(1).max(128)).max(1000);

export const Scope = z
  .record(z.string(), z.strictObject({ validator_addresses: AddressList, delegator_addresses: AddressList }))
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
  });

export const SignupRequest = z.object({
  email: Email,
  password: Password,
  org: z.string().trim().min(1, { message: "Must not be empty" }).max(200),
  scope: Scope,
});
export type SignupRequest = z.infer<typeof SignupRequest>;

export const CreateKeyRequest = z.object({
  label: z
    .string()
    .trim()
    .min(1, { message: "Must not be empty" })
    .max(LABEL_MAX_LENGTH, { message: `Must be at most ${LABEL_MAX_LENGTH} characters` }),
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
