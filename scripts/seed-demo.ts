import { issueApiKey } from "@stake/db/api-key";
import type { Db } from "@stake/db/client";
import { apiKeys } from "@stake/db/schema/accounts";
import { and, eq, isNull } from "drizzle-orm";
import { createPasswordHasher } from "../control-plane/src/auth/password.ts";
import { createAccountsRepo } from "../control-plane/src/features/account-v2/repo.ts";

export const DEMO = {
  email: "demo@example.com",
  password: "DemoPassw0rd",
  org: "Demo Staking Org",
  keyLabel: "demo",
} as const;

/**
 * Idempotent demo data: an approved organisation with an unrestricted scope and one fresh staking key.
 * Keys are stored hashed, so a restart cannot show the old demo key again: it revokes it and issues another.
 */
export async function seedDemo(
  db: Db,
): Promise<{ email: string; password: string; apiKey: string; keyId: string }> {
  const repo = createAccountsRepo(db);
  let org = await repo.findOrganisationByEmail(DEMO.email);
  if (!org) {
    const passwordHash = await createPasswordHasher({ memoryCost: 19456, timeCost: 2 }).hash(DEMO.password);
    await repo.insertOrganisation({
      orgName: DEMO.org,
      email: DEMO.email,
      passwordHash,
      scope: {},
      signedUpVia: "v2",
    });
  }
  org = await repo.setOrganisationStatus(DEMO.email, "approved");
  const orgId = org!.id;
  const issued = issueApiKey("staking");
  const key = await db.transaction(async (tx) => {
    await tx
      .update(apiKeys)
      .set({ revokedAt: new Date() })
      .where(
        and(eq(apiKeys.organisationId, orgId), eq(apiKeys.label, DEMO.keyLabel), isNull(apiKeys.revokedAt)),
      );
    return repo.insertKey({ organisationId: orgId, label: DEMO.keyLabel, issued }, tx);
  });
  return { email: DEMO.email, password: DEMO.password, apiKey: issued.key, keyId: key.id };
}
