import { issueApiKey } from "@stake/db/api-key";
import type { Db } from "@stake/db/client";
import type { OrganisationScope, organisations } from "@stake/db/schema/accounts";
import { parseOrThrow } from "../../errors.ts";
import { createAccountsRepo } from "../../platform/accounts-repo.ts";
import { OPERATOR, recordAudit } from "../../platform/audit.ts";
import { Scope } from "./schemas.ts";

export type OrganisationStatus = (typeof organisations.$inferSelect)["status"];

/**
 * What the operator does to staking accounts (the operator CLI and the demo seed): review organisations,
 * issue and revoke their keys. A staking key is stored hashed: the secret is in the result only. A status
 * change (approval, rejection, suspension) is audited in its own transaction.
 */
export function createAccountOperatorService(deps: { db: Db }) {
  const { db } = deps;
  const repo = createAccountsRepo(db);
  /** The organisation with its new status, or null when there is none with that e-mail. */
  const setOrganisationStatus = (email: string, status: OrganisationStatus) =>
    db.transaction(async (tx) => {
      const before = await repo.lockOrganisationByEmail(email, tx);
      if (!before) return null;
      const row = await repo.setOrganisationStatus(email, status, tx);
      if (row && before.status !== row.status)
        await recordAudit(tx, {
          actor: OPERATOR,
          action: "organisation.status",
          target: row.id,
          before: { status: before.status },
          after: { status: row.status },
        });
      return row;
    });
  return {
    listOrganisations: (status?: OrganisationStatus) => repo.listOrganisations(status),
    setOrganisationStatus,

    /**
     * Replaces the scope of the organisation with that e-mail (null when there is none). The scope is
     * checked as at sign-up: an entry no area could ever match would lock the organisation out.
     */
    setOrganisationScope: (email: string, scope: unknown) =>
      repo.setOrganisationScope(email, parseOrThrow(Scope, scope, "scope")),

    /** A new key of the organisation with that e-mail, or null when there is none. */
    async issueKey(email: string, label: string) {
      const org = await repo.findOrganisationByEmail(email);
      if (!org) return null;
      const issued = issueApiKey("staking");
      const row = await repo.insertKey({ organisationId: org.id, label, issued });
      return { organisation: org, keyId: row.id, label: row.label, apiKey: issued.key };
    },
    /** Whether an active key was revoked. */
    revokeKey: (keyId: string) => repo.revokeKey(keyId),

    /**
     * An approved organisation (found by e-mail, else created with `passwordHash` and an unrestricted
     * scope) with one fresh key labelled `label`, its earlier keys of that label revoked in the same
     * transaction; or, when `keep` is an active key of that organisation and label, that key unchanged (the
     * demo keeps its printed key across restarts).
     */
    async openApprovedOrganisation(input: {
      email: string;
      orgName: string;
      passwordHash: () => Promise<string>;
      label: string;
      keep?: string | undefined;
    }) {
      if (!(await repo.findOrganisationByEmail(input.email))) {
        const scope: OrganisationScope = {};
        await repo.insertOrganisation({
          orgName: input.orgName,
          email: input.email,
          passwordHash: await input.passwordHash(),
          scope,
          signedUpVia: "v2",
        });
      }
      const org = (await setOrganisationStatus(input.email, "approved"))!;
      const kept = input.keep ? await repo.findActiveKey(input.keep) : null;
      if (kept && kept.organisation.id === org.id && kept.label === input.label)
        return { organisationId: org.id, keyId: kept.keyId, apiKey: input.keep! };
      const issued = issueApiKey("staking");
      const key = await db.transaction(async (tx) => {
        await repo.revokeKeysLabelled(org.id, input.label, tx);
        return repo.insertKey({ organisationId: org.id, label: input.label, issued }, tx);
      });
      return { organisationId: org.id, keyId: key.id, apiKey: issued.key };
    },
  };
}

export type AccountOperatorService = ReturnType<typeof createAccountOperatorService>;
