import { idPattern } from "@stake/db/ids";
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
  id: z.string().regex(idPattern("gatewayKey"), "Malformed key id (expected gkid_ followed by base58)"),
});

export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
});
export type PageQuery = z.infer<typeof PageQuery>;

const Timestamp = z.iso.datetime();
/** A ledger-coin amount as an exact decimal string (10 decimals do not survive a JS number). */
const Coins = z.string().regex(/^-?\d+(\.\d+)?$/);

export const SignupResponse = z.object({ userId: z.string(), email: z.string(), createdAt: Timestamp });
export const LoginResponse = z.object({
  token: z.string(),
  tokenType: z.literal("Bearer"),
  expiresIn: z.number().int(),
});
export const PartyResponse = z.object({ partyId: z.string(), createdAt: Timestamp });
/** `party: null` until the user creates one: not having a party yet is a normal state, not an error. */
export const PartyLookupResponse = z.object({ party: PartyResponse.nullable() });
export const CreateKeyResponse = z.object({
  id: z.string(),
  key: z.string(),
  start: z.string(),
  createdAt: Timestamp,
});
export const KeyListResponse = z.object({
  keys: z.array(
    z.object({
      id: z.string(),
      /** The key's first characters, as shown at creation; the secret itself is never stored. */
      start: z.string(),
      active: z.boolean(),
      createdAt: Timestamp,
      deactivatedAt: Timestamp.nullable(),
    }),
  ),
});
export const ProvidersResponse = z.object({
  providers: z.array(
    z.object({
      key: z.string(),
      /** USD per request as an exact decimal string. */
      costInUSD: z.string().regex(/^\d+(\.\d+)?$/),
      status: z.enum(["active", "degraded"]),
    }),
  ),
});
export const DeactivateKeyResponse = z.object({
  id: z.string(),
  active: z.literal(false),
  deactivatedAt: Timestamp,
});
export const BalanceResponse = z.object({ balance: Coins, reservedBalance: Coins });
/** `gateway.balance_low` fires when settlement takes the balance below this; null turns it off (issue 28). */
export const LowBalanceThresholdRequest = z.object({
  threshold: z
    .string()
    .regex(/^\d{1,8}(\.\d{1,10})?$/, "a non-negative coin amount as a decimal string, at most 10 decimals")
    .nullable(),
});
export type LowBalanceThresholdRequest = z.infer<typeof LowBalanceThresholdRequest>;
export const LowBalanceThresholdResponse = z.object({ threshold: Coins.nullable() });
export const ReservationsResponse = z.object({
  reservations: z.array(
    z.object({
      id: z.string(),
      idempotencyKey: z.string(),
      partyId: z.string(),
      providerKey: z.string(),
      costInUSD: z.number(),
      cost: Coins,
      status: z.enum(["request_in_flight", "registered", "failed", "queued", "settled"]),
      createdAt: Timestamp,
      updatedAt: Timestamp,
    }),
  ),
  page: z.number().int(),
  pageSize: z.number().int(),
  total: z.number().int(),
});
export const HealthResponse = z.object({ status: z.literal("ok") });
