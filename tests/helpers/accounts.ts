import { issueApiKey } from "@stake/db/api-key";
import type { Db } from "@stake/db/client";
import type { OrganisationScope } from "@stake/db/schema/accounts";
import { createPasswordHasher } from "../../control-plane/src/auth/password.ts";
import { createAccountsRepo } from "../../control-plane/src/platform/accounts-repo.ts";

let counter = 0;
export const STRONG_PASSWORD = "Sup3rSecret";

export function uniqueEmail(tag = "org"): string {
  return `${tag}-${process.pid}-${Date.now()}-${counter++}@example.com`;
}

export function basic(email: string, password: string): string {
  return `Basic ${Buffer.from(`${email}:${password}`).toString("base64")}`;
}

/**
 * An organisation in the given status (approved unless told) with one staking key, made through the real
 * repo: the one fixture every area's tests use for "an approved organisation and its API key".
 */
export async function makeOrganisation(
  db: Db,
  overrides: {
    status?: "pending" | "approved" | "rejected" | "suspended";
    scope?: OrganisationScope;
    email?: string;
  } = {},
) {
  const repo = createAccountsRepo(db);
  const email = overrides.email ?? uniqueEmail();
  const passwordHash = await createPasswordHasher({ memoryCost: 8192, timeCost: 1 }).hash(STRONG_PASSWORD);
  const org = await repo.insertOrganisation({
    orgName: "Test Org",
    email,
    passwordHash,
    scope: overrides.scope ?? {},
    signedUpVia: "v2",
  });
  await repo.setOrganisationStatus(email, overrides.status ?? "approved");
  const issued = issueApiKey("staking");
  const key = await repo.insertKey({ organisationId: org!.id, label: "test", issued });
  return { id: org!.id, email, password: STRONG_PASSWORD, apiKey: issued.key, keyId: key.id };
}

export type TestOrganisation = Awaited<ReturnType<typeof makeOrganisation>>;
