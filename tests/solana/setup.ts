import { ed25519 } from "@noble/curves/ed25519.js";
import { issueApiKey } from "@stake/db/api-key";
import type { OrganisationScope } from "@stake/db/schema/accounts";
import { createAccountsRepo } from "../../control-plane/src/features/account-v2/repo.ts";
import { base58Encode } from "../../control-plane/src/features/solana-stake/codec.ts";
import type { ControlPlaneHarness } from "../helpers/control-plane.ts";

/** An approved organisation with a staking key; returns the raw key. */
export async function approvedKey(h: ControlPlaneHarness, email: string, scope: OrganisationScope = {}) {
  const repo = createAccountsRepo(h.db);
  const org = await repo.insertOrganisation({
    orgName: email,
    email,
    passwordHash: "x",
    scope,
    signedUpVia: "v2",
  });
  if (!org) throw new Error("organisation exists");
  await repo.setOrganisationStatus(email, "approved");
  const issued = issueApiKey("staking");
  await repo.insertKey({ organisationId: org.id, label: "test", issued });
  return issued.key;
}

/** A test wallet from a fixed seed; signs the one signature slot of an unsigned transaction. */
export function testWallet(seedByte: number) {
  const secret = new Uint8Array(32).fill(seedByte);
  return {
    pubkey: base58Encode(ed25519.getPublicKey(secret)),
    sign(unsignedBase64: string): string {
      const tx = Buffer.from(unsignedBase64, "base64");
      if (tx[0] !== 1) throw new Error("expected exactly one signature slot");
      tx.set(ed25519.sign(tx.subarray(65), secret), 1);
      return tx.toString("base64");
    },
  };
}
