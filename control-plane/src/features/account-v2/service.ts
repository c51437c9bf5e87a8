import { issueApiKey } from "@stake/db/api-key";
import type { PasswordHasher } from "../../auth/password.ts";
import { AppError } from "../../errors.ts";
import type { AbuseLimits } from "../../http/abuse-limits.ts";
import type { BasicCredentials } from "../../http/basic-auth.ts";
import type { AccountsRepo } from "../../platform/accounts-repo.ts";
import type { SignupRequest } from "./schemas.ts";

export function createAccountService(deps: {
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
      // Checked before the insert, not with it: concurrent creations may pass one each, a handful at most.
      if ((await accounts.listActiveKeys(organisationId)).length >= deps.maxActiveKeys) {
        throw new AppError(
          "API_KEY_LIMIT_REACHED",
          `The organisation already has ${deps.maxActiveKeys} active API keys; revoke one first`,
        );
      }
      const issued = issueApiKey("staking");
      const row = await accounts.insertKey({ organisationId, label, issued });
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
