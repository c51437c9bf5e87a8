import { z } from "zod";

/** Public, well-known value so `npm start` works out of the box; refused outside demo mode (config.ts). */
export const DEMO_GATEWAY_JWT_SECRET = "dev-only-gateway-jwt-secret-change-me-in-production";

const int = (min: number, max: number, fallback: number, description: string) =>
  z.coerce.number().int().min(min).max(max).default(fallback).describe(description);

/** The gateway account area's variables, composed into the control plane's (`config.ts`). */
export const GatewayAccountConfig = z
  .object({
    GATEWAY_JWT_SECRET: z
      .string()
      .min(32)
      .default(DEMO_GATEWAY_JWT_SECRET)
      .describe(
        "HS256 secret of gateway account bearer tokens. The default is a public DEMO secret, refused unless DEMO_MODE=1, and always on mainnet.",
      ),
    GATEWAY_JWT_TTL_SECONDS: int(60, 86_400, 900, "Lifetime of a gateway account bearer token."),
    GATEWAY_KEYS_PER_USER: int(
      1,
      Number.MAX_SAFE_INTEGER,
      20,
      "Active gateway API keys a gateway user may hold; creating one more is 409.",
    ),
    GATEWAY_ACCOUNT_RATE_LIMIT: int(
      1,
      Number.MAX_SAFE_INTEGER,
      300,
      "Gateway account API requests allowed per client address per window.",
    ),
    GATEWAY_ACCOUNT_RATE_WINDOW_SECONDS: int(
      1,
      Number.MAX_SAFE_INTEGER,
      900,
      "Window of the gateway account API rate limit.",
    ),
  })
  .transform((e) => ({
    /** Secret: never log it. */
    jwtSecret: e.GATEWAY_JWT_SECRET,
    jwtTtlSeconds: e.GATEWAY_JWT_TTL_SECONDS,
    rateLimit: e.GATEWAY_ACCOUNT_RATE_LIMIT,
    keysPerUser: e.GATEWAY_KEYS_PER_USER,
    rateWindowSeconds: e.GATEWAY_ACCOUNT_RATE_WINDOW_SECONDS,
  }));
