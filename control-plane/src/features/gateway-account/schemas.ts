import { z } from "zod";
import { Email, Password } from "../account-v2/schemas.ts";

/** Bodies the spec leaves open (documented in the README). */
export const SignupRequest = z.object({ email: Email, password: Password });
export type SignupRequest = z.infer<typeof SignupRequest>;

export const LoginRequest = z.object({ email: Email, password: z.string().min(1).max(256) });
export type LoginRequest = z.infer<typeof LoginRequest>;

export const CreateKeyRequest = z.object({ label: z.string().trim().min(1).max(64).optional() }).optional();
export type CreateKeyRequest = z.infer<typeof CreateKeyRequest>;

export const KeyIdParams = z.object({
  id: z.string().regex(/^gwk_[1-9A-HJ-NP-Za-km-z]{16,22}$/, "Malformed key id"),
});

export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
});
export type PageQuery = z.infer<typeof PageQuery>;
