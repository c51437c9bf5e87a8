import assert from "node:assert/strict";
import { test } from "node:test";
import { SignJWT } from "jose";
import { createJwt } from "./jwt.ts";

const params = { secret: "s".repeat(32), issuer: "iss", audience: "aud", ttlSeconds: 60 };
const key = new TextEncoder().encode(params.secret);
const token = (build: (t: SignJWT) => SignJWT) =>
  build(
    new SignJWT({})
      .setProtectedHeader({ alg: "HS256" })
      .setSubject("user_1")
      .setIssuer("iss")
      .setAudience("aud"),
  ).sign(key);

test("a valid token verifies; one without exp (or iat) is refused even with the right secret", async () => {
  const jwt = createJwt(params);
  assert.equal(await jwt.verify(await jwt.sign("user_1")), "user_1");
  assert.equal(await jwt.verify(await token((t) => t.setIssuedAt())), null, "no exp: would never expire");
  assert.equal(await jwt.verify(await token((t) => t.setExpirationTime("1m"))), null, "no iat");
  assert.equal(await jwt.verify(await token((t) => t.setIssuedAt().setExpirationTime("1m"))), "user_1");
  assert.equal(await jwt.verify(await token((t) => t.setIssuedAt().setExpirationTime(1))), null, "expired");
});
