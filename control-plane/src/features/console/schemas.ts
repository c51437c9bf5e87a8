import { z } from "zod";
import { Email } from "../account-v2/schemas.ts";

const AssetName = z.string().regex(/^[\w.-]{1,100}$/, "Malformed asset name");
export const AssetParams = z.object({ file: AssetName });

/** Any password the v2 account could hold: sign-in checks it, the sign-up rules are not repeated here. */
export const SignInRequest = z.object({
  email: Email,
  password: z.string().min(1, { message: "Must not be empty" }).max(256),
});

export const SignInResponse = z.object({
  token: z.string().meta({
    description: "Console session token: send as `Authorization: Bearer`; never stored server-side",
  }),
  expiresAt: z.iso.datetime().meta({ description: "When the session ends (30 minutes, not renewed)" }),
  organisationId: z.string(),
});
