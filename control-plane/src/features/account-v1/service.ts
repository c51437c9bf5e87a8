import { issueApiKey } from "@stake/db/api-key";
import type { Db } from "@stake/db/client";
import type { OrganisationScope } from "@stake/db/schema/accounts";
import type { PasswordHasher } from "../../auth/password.ts";
import { AppError } from "../../errors.ts";
import type { AbuseLimits } from "../../http/abuse-limits.ts";
import type { AccountsRepo } from "../../platform/accounts-repo.ts";
import type { RegisterRequest } from "./schemas.ts";

/** Account v1: the same organisations and keys as v2; only registration shape and single-key rotation differ. */
export function createAccountV1Service(deps: {
  /** Opens the rotation's unit of work. */
  db: Db;
  accounts: AccountsRepo;
  passwords: PasswordHasher;
  limits: AbuseLimits;
}) {
  const { accounts, passwords, limits } = deps;

  return {
    async register(input: RegisterRequest, ip: string) {
      await limits.consumeSignup(ip, input.email);
      const scope: OrganisationScope = {};
      for (const [chain, addresses] of Object.entries(input.allowedAddresses)) {
        scope[chain] = { validator_addresses: [], delegator_addresses: addresses ?? [] };
      }
      const org = await accounts.insertOrganisation({
        orgName: input.orgName,
        email: input.email,
        passwordHash: await passwords.hash(input.password),
        scope,
        signedUpVia: "v1",
      });
      if (!org) throw new AppError("USER_EXISTS", "An account with this e-mail already exists");
      return {
        id: org.id,
        orgName: org.orgName,
        email: org.email,
        allowedAddresses: input.allowedAddresses,
        createdAt: org.createdAt.toISOString(),
      };
    },

    /** Issues a new key and revokes the presented one in one transaction; a concurrent rotation loses. */
    async rotateKey(presentedKey: string) {
      const found = await accounts.findActiveKey(presentedKey);
      if (!found) throw new AppError("INVALID_API_KEY", "Invalid or revoked API key");
      if (found.organisation.status !== "approved") {
        throw new AppError(
          "ORGANISATION_NOT_APPROVED",
          `Organisation is ${found.organisation.status}, not approved`,
        );
      }
      const issued = issueApiKey("staking");
      // Revoking first: of two concurrent rotations with one key, the second finds it revoked and loses.
      const replaced = await deps.db.transaction(async (tx) => {
        if (!(await accounts.revokeKey(found.keyId, found.organisation.id, tx))) return false;
        await accounts.insertKey({ organisationId: found.organisation.id, label: found.label, issued }, tx);
        return true;
      });
      if (!replaced) throw new AppError("INVALID_API_KEY", "Invalid or revoked API key");
      return issued.key;
    },
  };
}

export type AccountV1Service = ReturnType<typeof createAccountV1Service>;
