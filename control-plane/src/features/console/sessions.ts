import { createHash, randomBytes } from "node:crypto";
import type { Redis } from "@stake/db/redis/client";
import type { RedisKeys } from "@stake/db/redis/keys";
import type { OrganisationScope } from "@stake/db/schema/accounts";
import { AppError } from "../../errors.ts";
import type { BasicCredentials } from "../../http/basic-auth.ts";

/**
 * Half an hour, not renewed: a stolen token is worth little for long, and a finance user reading a month
 * of statements signs in once. Fixed so that every token's life is known when it is handed out.
 */
export const SESSION_TTL_SECONDS = 1800;
/** Live sessions one organisation may hold; the oldest ends when a new one would pass it. */
export const SESSIONS_PER_ORGANISATION = 10;

const TOKEN = /^cs_[A-Za-z0-9_-]{43}$/;

/** What a console session proves: the organisation, with its scope, as an API key of it would. */
export interface ConsolePrincipal {
  organisationId: string;
  scope: OrganisationScope;
}

/** The ports the sessions need: the v2 password check (its limits included) and the organisation's state. */
export interface SessionDeps {
  redis: Redis;
  keys: RedisKeys;
  authenticate(credentials: BasicCredentials, ip: string): Promise<{ id: string }>;
  findOrganisation(id: string): Promise<{ id: string; status: string; scope: OrganisationScope } | null>;
}

const hashOf = (token: string) => createHash("sha256").update(token).digest("hex");

/**
 * Console sessions: an opaque random token (`cs_` + 32 bytes, base64url) handed to the page, which sends it
 * as `Authorization: Bearer`. Redis keeps only its SHA-256, so the lookup is by hash (nothing secret is
 * compared byte by byte) and a Redis dump holds no usable token. Not a cookie: the browser never sends it
 * on its own, so a cross-site form cannot act with it (no CSRF), and sign-out deletes it at once.
 */
export function createConsoleSessions(deps: SessionDeps) {
  const { redis, keys } = deps;
  return {
    /** Signs in with the v2 e-mail and password (argon2id, failures slowed per address and e-mail). */
    async signIn(credentials: BasicCredentials, ip: string) {
      const org = await deps.authenticate(credentials, ip);
      const token = `cs_${randomBytes(32).toString("base64url")}`;
      const hash = hashOf(token);
      const expiresAt = Date.now() + SESSION_TTL_SECONDS * 1000;
      const index = keys.consoleSessions(org.id);
      await redis.set(keys.consoleSession(hash), org.id, "EX", SESSION_TTL_SECONDS);
      await redis.zremrangebyscore(index, "-inf", Date.now());
      await redis.zadd(index, expiresAt, hash);
      await redis.expire(index, SESSION_TTL_SECONDS);
      const surplus = (await redis.zcard(index)) - SESSIONS_PER_ORGANISATION;
      if (surplus > 0) {
        const oldest = await redis.zrange(index, 0, surplus - 1);
        await redis.del(...oldest.map((h) => keys.consoleSession(h)));
        await redis.zrem(index, ...oldest);
      }
      return { token, expiresAt: new Date(expiresAt).toISOString(), organisationId: org.id };
    },

    /** Ends the session of `token` (nothing happens for an unknown or expired one). */
    async signOut(token: string): Promise<void> {
      if (!TOKEN.test(token)) return;
      const hash = hashOf(token);
      const organisationId = await redis.getdel(keys.consoleSession(hash));
      if (organisationId) await redis.zrem(keys.consoleSessions(organisationId), hash);
    },

    /**
     * The organisation behind a live token, checked as an API key is on every request: approved now, with
     * its scope now (a suspension ends its sessions' use at once). Null for anything else.
     */
    async resolve(token: string): Promise<ConsolePrincipal | null> {
      if (!TOKEN.test(token)) return null;
      const organisationId = await redis.get(keys.consoleSession(hashOf(token)));
      if (!organisationId) return null;
      const org = await deps.findOrganisation(organisationId);
      if (!org) return null;
      if (org.status !== "approved") {
        throw new AppError("ORGANISATION_NOT_APPROVED", `Organisation is ${org.status}, not approved`);
      }
      return { organisationId: org.id, scope: org.scope };
    },
  };
}

export type ConsoleSessions = ReturnType<typeof createConsoleSessions>;

/** The bearer token of `Authorization: Bearer cs_…`, or undefined when the header is anything else. */
export function consoleToken(authorization: string | undefined): string | undefined {
  const m = /^Bearer (cs_[A-Za-z0-9_-]+)$/.exec(authorization ?? "");
  return m?.[1];
}
