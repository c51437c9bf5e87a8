import { jwtVerify, SignJWT } from "jose";

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
        });
        return typeof payload.sub === "string" ? payload.sub : null;
      } catch {
        return null;
      }
    },
  };
}

export type Jwt = ReturnType<typeof createJwt>;
