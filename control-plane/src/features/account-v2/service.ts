import { issueApiKey } from "@stake/db/api-key";
import type { Db } from "@stake/db/client";
import type { PasswordHasher } from "../../auth/password.ts";
import { AppError } from "../../errors.ts";
import type { AbuseLimits } from "../../http/abuse-limits.ts";
import type { BasicCredentials } from "../../http/basic-auth.ts";
import type { AccountsRepo } from "../../platform/accounts-repo.ts";
import { lockOwnerCap } from "../../platform/owner-cap.ts";
import type { SignupRequest } from "./schemas.ts";

export function createAccountService(deps: {
  /** Opens the unit of work that counts and inserts a key under the organisation's lock. */
  db: Db;
  accounts: AccountsRepo;
  passwords: PasswordHasher;
  limits: AbuseLimits;
  /** Active keys an organisation may hold: each is a separate per-key request budget. */
  maxActiveKeys: number;
}) {
  const { accounts, passwords, limits } = deps;

  return {
    async signup(input: SignupRequest, ip: string): Promise<void> {
      await limits.consumeSignup(ip, input.email);
      const passwordHash = await passwords.hash(input.password);
      const org = await accounts.insertOrganisation({
        orgName: input.org,
        email: input.email,
        passwordHash,
        scope: input.scope,
        signedUpVia: "v2",
      });
      if (!org) throw new AppError("USER_EXISTS", "An account with this e-mail already exists");
    },

    /** Basic-auth login for the key endpoints: only approved organisations get through. */
    async authenticate(credentials: BasicCredentials, ip: string) {
      const org = await accounts.findOrganisationByEmail(credentials.email);
      const ok = await limits.guardPasswordCheck(ip, credentials.email, () =>
        org
          ? passwords.verify(org.passwordHash, credentials.password)
          : passwords.verifyDummy(credentials.password),
      );
      if (!org || !ok) throw new AppError("INVALID_CREDENTIALS", "Invalid e-mail or password");
      switch (org.status) {
        case "approved":
          return org;
        case "pending":
          throw new AppError("ORGANISATION_PENDING", "Organisation is awaiting approval");
        case "rejected":
          throw new AppError("ORGANISATION_REJECTED", "Organisation was rejected");
        case "suspended":
          throw new AppError("ORGANISATION_SUSPENDED", "Organisation is suspended");
      }
    },

    /** The caller's own organisation as `GET /user/organisation` shows it (scope included). */
    async getOrganisation(organisationId: string) {
      const org = await accounts.findOrganisationById(organisationId);
      if (!org) throw new AppError("INVALID_CREDENTIALS", "Invalid e-mail or password");
      return {
        id: org.id,
        org: org.orgName,
        email: org.email,
        status: org.status,
        scope: org.scope,
        createdAt: org.createdAt.toISOString(),
      };
    },

    /** The staking areas' API-key check: an active key by its raw value, with its organisation. */
    findActiveKey: (key: string) => accounts.findActiveKey(key),

    async createKey(organisationId: string, label: string) {
      const issued = issueApiKey("staking");
      const row = await deps.db.transaction(async (tx) => {
        await lockOwnerCap(tx, "api_keys", organisationId);
        if ((await accounts.listActiveKeys(organisationId, tx)).length >= deps.maxActiveKeys) {
          throw new AppError(
            "API_KEY_LIMIT_REACHED",
            `The organisation already has ${deps.maxActiveKeys} active API keys; revoke one first`,
          );
        }
        return accounts.insertKey({ organisationId, label, issued }, tx);
      });
      return { keyId: row.id, label: row.label, apiKey: issued.key };
    },

    async listKeys(organisationId: string) {
      const rows = await accounts.listActiveKeys(organisationId);
      return rows.map((r) => ({ keyId: r.keyId, label: r.label, createdAt: r.createdAt.toISOString() }));
    },

    async revokeKey(organisationId: string, keyId: string): Promise<void> {
      if (!(await accounts.revokeKey(keyId, organisationId))) {
        throw new AppError("API_KEY_NOT_FOUND", "API key not found");
      }
    },
  };
}

export type AccountService = ReturnType<typeof createAccountService>;
