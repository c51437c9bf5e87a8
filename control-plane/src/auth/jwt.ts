import type { Request } from "express";
import { jwtVerify, SignJWT } from "jose";
import { AppError } from "../errors.ts";

/**
 * Short-lived HS256 bearer tokens for the gateway account API. Algorithm, issuer and audience are pinned
 * on verification, so a token minted for another audience or with `alg: none` is refused.
 */
export function createJwt(params: { secret: string; issuer: string; audience: string; ttlSeconds: number }) {
  const key = new TextEncoder().encode(params.secret);
  return {
    ttlSeconds: params.ttlSeconds,
    sign: (subject: string) =>
      new SignJWT({})
        .setProtectedHeader({ alg: "HS256", typ: "JWT" })
        .setSubject(subject)
        .setIssuer(params.issuer)
        .setAudience(params.audience)
        .setIssuedAt()
        .setExpirationTime(`${params.ttlSeconds}s`)
        .sign(key),
    /** The subject of a valid token, or null. */
    async verify(token: string): Promise<string | null> {
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ["HS256"],
          issuer: params.issuer,
          audience: params.audience,
          // jose checks `exp` only when present: a token minted without one would never expire.
          requiredClaims: ["exp", "iat", "sub"],
        });
        return typeof payload.sub === "string" ? payload.sub : null;
      } catch {
        return null;
      }
    },
  };
}

export type Jwt = ReturnType<typeof createJwt>;

/** Bearer JWT → user id; "Unauthorized" without a bearer token, "Invalid token" for a bad one. */
export function createBearerAuth(jwt: Jwt) {
  return async (req: Request): Promise<{ userId: string }> => {
    const m = /^Bearer ([A-Za-z0-9._~+/-]+=*)$/.exec(req.headers.authorization ?? "");
    if (!m?.[1]) throw new AppError("UNAUTHORIZED", "Unauthorized");
    const userId = await jwt.verify(m[1]);
    if (!userId) throw new AppError("INVALID_TOKEN", "Invalid token");
    return { userId };
  };
}
