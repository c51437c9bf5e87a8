import { idPattern } from "@stake/db/ids";
import { z } from "zod";
import { noControls } from "../../http/text.ts";
import { Email, Password } from "../account-v2/schemas.ts";

/** Bodies the spec leaves open (documented in the README). */
export const SignupRequest = z.object({ email: Email, password: Password });
export type SignupRequest = z.infer<typeof SignupRequest>;

export const LoginRequest = z.object({ email: Email, password: z.string().min(1).max(256) });
export type LoginRequest = z.infer<typeof LoginRequest>;

/** Named limits one key may carry: each is a field pair in the party's account hash and a RateLimit item. */
export const MAX_KEY_LIMITS = 4;
/** The longest window of a key limit: a month, like the longest spend cap. */
const MAX_WINDOW_SECONDS = 31 * 86_400;

/**
 * One named limit: `requests` per fixed window of `windowSeconds`. The name is a RateLimit policy name and
 * part of a Redis field, so it is kept to lower-case letters, digits, `_` and `-`; "party" and "failures"
 * name the party's own limits in `gateway-limit`.
 */
export const KeyLimit = z.object({
  name: z
    .string()
    .regex(/^[a-z0-9_-]{1,32}$/, "1-32 characters of a-z, 0-9, _ and -")
    .refine((n) => n !== "party" && n !== "failures", "party and failures name the party's limits"),
  requests: z.number().int().min(1).max(1_000_000_000),
  windowSeconds: z.number().int().min(1).max(MAX_WINDOW_SECONDS),
});
export const KeyLimits = z
  .array(KeyLimit)
  .max(MAX_KEY_LIMITS)
  .refine((ls) => new Set(ls.map((l) => l.name)).size === ls.length, "limit names must differ");

/** A cap in coins: a positive exact decimal string of at most 10 decimals, or null for none. */
const Cap = z
  .string()
  .regex(/^\d{1,12}(\.\d{1,10})?$/, "Must be a coin amount with at most 10 decimals")
  .refine((v) => /[1-9]/.test(v), "Must be more than 0")
  .nullable();
export const SpendCapsRequest = z.object({ daily: Cap, monthly: Cap });
export type SpendCapsRequest = z.infer<typeof SpendCapsRequest>;

export const CreateKeyRequest = z
  .object({
    label: z
      .string()
      .trim()
      .min(1)
      .max(64)
      .refine(...noControls)
      .optional(),
    /** When the key stops working; must be in the future. */
    expiresAt: z.iso
      .datetime({ offset: true })
      .refine((v) => Date.parse(v) > Date.now(), "Must be in the future")
      .optional(),
    limits: KeyLimits.optional(),
    spendCaps: SpendCapsRequest.optional(),
  })
  .optional();
export type CreateKeyRequest = z.infer<typeof CreateKeyRequest>;

export const KeyLimitsRequest = z.object({ limits: KeyLimits });
export type KeyLimitsRequest = z.infer<typeof KeyLimitsRequest>;

/** The longest grace a rotated secret gets: a week, time enough to roll the new one out. */
export const MAX_ROTATION_GRACE_SECONDS = 7 * 86_400;
export const DEFAULT_ROTATION_GRACE_SECONDS = 3600;
export const RotateKeyRequest = z
  .object({
    /** How long the old secret keeps working (default an hour; 0: refused at once). */
    graceSeconds: z
      .number()
      .int()
      .min(0)
      .max(MAX_ROTATION_GRACE_SECONDS)
      .default(DEFAULT_ROTATION_GRACE_SECONDS),
  })
  .optional();
export type RotateKeyRequest = z.infer<typeof RotateKeyRequest>;

export const KeyIdParams = z.object({
  id: z.string().regex(idPattern("gatewayKey"), "Malformed key id (expected gkid_ followed by base58)"),
});

export const PageQuery = z.object({
  page: z.coerce.number().int().min(1).default(1),
  pageSize: z.coerce.number().int().min(1).max(100).default(20),
});
export type PageQuery = z.infer<typeof PageQuery>;

const Timestamp = z.iso.datetime();
const Paging = { page: z.number().int(), pageSize: z.number().int(), total: z.number().int() };
/** A ledger-coin amount as an exact decimal string (10 decimals do not survive a JS number). */
const Coins = z.string().regex(/^-?\d+(\.\d+)?$/);

export const LoginResponse = z.object({
  token: z.string(),
  tokenType: z.literal("Bearer"),
  expiresIn: z.number().int(),
});
/** Sign-up signs the user in: the new user and a bearer token as log-in gives (docs/spec.md, our addition). */
export const SignupResponse = z.object({
  userId: z.string(),
  email: z.string(),
  createdAt: Timestamp,
  ...LoginResponse.shape,
});
export const PartyResponse = z.object({ partyId: z.string(), createdAt: Timestamp });
/** `party: null` until the user creates one: not having a party yet is a normal state, not an error. */
export const PartyLookupResponse = z.object({ party: PartyResponse.nullable() });
/** A key's own spend caps in coins (null: none). */
const KeySpendCaps = z.object({ daily: Coins.nullable(), monthly: Coins.nullable() });
export const CreateKeyResponse = z.object({
  id: z.string(),
  key: z.string(),
  start: z.string(),
  label: z.string().nullable(),
  expiresAt: Timestamp.nullable(),
  createdAt: Timestamp,
  limits: z.array(KeyLimit),
  spendCaps: KeySpendCaps,
});
export const KeyListResponse = z.object({
  keys: z.array(
    z.object({
      id: z.string(),
      /** The key's first characters, as shown at creation; the secret itself is never stored. */
      start: z.string(),
      /** The user's name for the key, given at creation (null: none). */
      label: z.string().nullable(),
      active: z.boolean(),
      /** When the key stops working (null: never); an expired key is refused like a deactivated one. */
      expiresAt: Timestamp.nullable(),
      createdAt: Timestamp,
      deactivatedAt: Timestamp.nullable(),
      /** The key's named request limits (empty: only the party's apply). */
      limits: z.array(KeyLimit),
      /** The key's own spend caps in coins (null: none). */
      spendCaps: KeySpendCaps,
      /** The last request that reached the reservation stage with the key (null: none yet). */
      lastUsedAt: Timestamp.nullable(),
      /** When its secret was last replaced, and until when the previous one still works (null: never). */
      rotatedAt: Timestamp.nullable(),
      previousKeyExpiresAt: Timestamp.nullable(),
    }),
  ),
});
export const RotateKeyResponse = z.object({
  id: z.string(),
  /** The new secret, shown once. */
  key: z.string(),
  start: z.string(),
  rotatedAt: Timestamp,
  /** The old secret works until then, and is refused (403) from then on. */
  previousKeyExpiresAt: Timestamp,
});
export const KeyLimitsResponse = z.object({ id: z.string(), limits: z.array(KeyLimit) });
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
/** `gateway.balance_low` fires when settlement takes the balance below this; null turns it off. */
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
      /** The gateway key the request came with (null: none recorded). */
      keyId: z.string().nullable(),
      /** The path asked of the provider, without its query, at most 256 characters (null: not recorded). */
      path: z.string().nullable(),
      /** The HTTP status the client got (null: none, it left before the answer, or still open). */
      httpStatus: z.number().int().nullable(),
      /** The provider's latency to its response headers, ms (null: it did not answer). */
      upstreamMs: z.number().int().nullable(),
    }),
  ),
  ...Paging,
});
export const HealthResponse = z.object({ status: z.literal("ok") });

/** The party's funding: the operator's credits to its ledger, newest first. */
export const FundingResponse = z.object({
  credits: z.array(
    z.object({
      id: z.string(),
      amount: Coins,
      /** The reference the operator funded with (a payment's id, say); unique, so a retry is credited once. */
      reference: z.string(),
      createdAt: Timestamp,
      /** When the credit reached the spendable balance (null: not yet, within a moment). */
      appliedAt: Timestamp.nullable(),
    }),
  ),
  ...Paging,
});

/** The rate the gateway prices requests at (null before the operator sets one). */
export const CoinRateResponse = z.object({
  rate: z.object({ usdPerCoin: z.string().regex(/^\d+(\.\d+)?$/), since: Timestamp }).nullable(),
});
export const SpendCapsResponse = z.object({
  daily: Coins.nullable(),
  monthly: Coins.nullable(),
  /** Coins reserved (charged or still open) in the current UTC day and month: what the caps count. */
  spentToday: Coins,
  spentThisMonth: Coins,
});

/** Longest range one usage read may cover: bounds the rows a party can make one request read. */
export const USAGE_MAX_DAYS = 366;
const DAY_MS = 86_400_000;
/**
 * A UTC day. The ISO check alone lets year 0000 through, which Postgres's `date` has no room for (it
 * answered 500); no usage predates 1970, and years past 9999 are not ISO days.
 */
const Day = z.iso.date().refine((d) => d >= "1970-01-01", "a day from 1970-01-01 on");

/**
 * A UTC day range, both ends included; default the last 7 days up to today. `to` before `from`, or a
 * range past USAGE_MAX_DAYS, is a validation error naming the field.
 */
export const UsageQuery = z
  .object({ from: Day.optional(), to: Day.optional() })
  .transform((q) => {
    const to = q.to ?? new Date().toISOString().slice(0, 10);
    const from = q.from ?? new Date(Date.parse(to) - 6 * DAY_MS).toISOString().slice(0, 10);
    return { from, to };
  })
  .superRefine((q, ctx) => {
    const days = (Date.parse(q.to) - Date.parse(q.from)) / DAY_MS + 1;
    if (days < 1) ctx.addIssue({ code: "custom", path: ["to"], message: "to must not be before from" });
    else if (days > USAGE_MAX_DAYS)
      ctx.addIssue({ code: "custom", path: ["from"], message: `at most ${USAGE_MAX_DAYS} days per request` });
  });
export type UsageQuery = z.output<typeof UsageQuery>;

const Count = z.number().int().min(0);
export const UsageRow = z.object({
  /** The UTC day the requests were made. */
  day: Day,
  /** The gateway key used ("" for none). */
  keyId: z.string(),
  providerKey: z.string(),
  /** Requests closed that day: settled + failed (a request still open is counted once it closes). */
  requests: Count,
  settled: Count,
  /** Coins charged (settled), exact decimal string. */
  charged: Coins,
  failed: Count,
  /** Coins reserved and released again (failed), exact decimal string. */
  released: Coins,
  status: z.object({ "2xx": Count, "3xx": Count, "4xx": Count, "5xx": Count, none: Count }),
  /**
   * Upstream latency percentiles, ms: the upper bound of the histogram bucket holding the percentile
   * (30000 means 30 s or more); null when no request of the row was answered.
   */
  upstreamP50Ms: Count.nullable(),
  upstreamP95Ms: Count.nullable(),
});
export const UsageResponse = z.object({
  from: Day,
  to: Day,
  rows: z.array(UsageRow),
  totals: z.object({ requests: Count, settled: Count, charged: Coins, failed: Count, released: Coins }),
});
export type UsageResponse = z.infer<typeof UsageResponse>;
