import { z } from "zod";
import { noControls } from "../../http/text.ts";
import { Email, scopeAddressList } from "../account-v2/schemas.ts";

/** v1 chains, as the spec lists them. */
export const V1_CHAINS = ["ethereum", "bitcoin", "sui", "polygon", "solana"] as const;
type V1Chain = (typeof V1_CHAINS)[number];

const AddressList = z.array(z.string().trim().min(1).max(128)).max(1000);

export const AllowedAddresses = z.partialRecord(z.enum(V1_CHAINS), AddressList).superRefine((value, ctx) => {
  // partialRecord ignores unknown keys only with a loose object; refuse them explicitly with a clear message.
  for (const [key, list] of Object.entries(value)) {
    if ((V1_CHAINS as readonly string[]).includes(key)) {
      // v1 addresses become the scope's delegator addresses: checked the same way (account-v2 schemas).
      const checked = scopeAddressList(key as V1Chain, "delegator_addresses").safeParse(list);
      for (const issue of checked.error?.issues ?? [])
        ctx.addIssue({ code: "custom", path: [key, ...issue.path], message: issue.message });
    } else {
      ctx.addIssue({
        code: "custom",
        path: [key],
        message: `Unsupported chain; use one of ${V1_CHAINS.join(", ")}`,
      });
    }
  }
});

export const RegisterRequest = z.object({
  orgName: z
    .string()
    .trim()
    .min(1, { message: "Must not be empty" })
    .max(200)
    .refine(...noControls),
  email: Email,
  // v1 keeps the spec's general limit (at least 8 characters); v2 adds the character-class rule.
  password: z.string().min(8, { message: "Must be at least 8 characters" }).max(256),
  allowedAddresses: AllowedAddresses,
});
export type RegisterRequest = z.infer<typeof RegisterRequest>;

export const RegisterResponse = z.object({
  success: z.literal(true),
  pendingUser: z.object({
    id: z.string(),
    orgName: z.string(),
    email: z.string(),
    allowedAddresses: z.record(z.string(), z.array(z.string())),
    createdAt: z.iso.datetime(),
  }),
  message: z.string(),
});
export const RotateKeyResponse = z.object({
  success: z.literal(true),
  apiKey: z.string(),
  message: z.string(),
});
