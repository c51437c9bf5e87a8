import type { Db } from "@stake/db/client";
import { hexOf } from "../../chains/evm.ts";
import { createKeyCipher } from "../../platform/secret-envelope.ts";
import { blsKeyFromSecret } from "./bls.ts";
import { signingKeyPath } from "./eip2333.ts";
import { encryptKeystore } from "./keystore.ts";
import { createProvisioningRepo } from "./repo.ts";

const no0x = (h: string) => h.replace(/^0x/, "");

/**
 * What the operator hands the validator client for a CREATED provision (the operator CLI's `keystores
 * export`): one EIP-2335 keystore per validator and the deposit data, in staking-deposit-cli's format.
 * Expected refusals are values; a stored key that does not match its pubkey is a fault and throws.
 */
export function createKeystoreExport(deps: { db: Db; keyEncryptionKey: string }) {
  const repo = createProvisioningRepo(deps.db);
  const cipher = createKeyCipher(deps.keyEncryptionKey);
  return async function exportKeystores(input: {
    provisionId: string;
    password: string;
    iterations: number;
  }) {
    const provision = await repo.findProvision(input.provisionId);
    if (!provision) return { outcome: "NOT_FOUND" as const };
    if (provision.status !== "CREATED") return { outcome: "NOT_CREATED" as const, status: provision.status };
    const rows = await repo.listValidators(input.provisionId);
    const keystores = rows.map((v) => {
      const secret = cipher.decrypt(v.encryptedSigningKey, v.pubkey);
      // A key that does not match its stored pubkey must never reach a validator client.
      if (hexOf(blsKeyFromSecret(BigInt(hexOf(secret))).publicKey) !== v.pubkey) {
        throw new Error(`stored key of ${v.pubkey} does not match its pubkey`);
      }
      const path = signingKeyPath(v.keyIndex);
      const { password, iterations } = input;
      return { path, keystore: encryptKeystore({ secret, password, pubkey: v.pubkey, path, iterations }) };
    });
    const depositData = rows.map((v) => ({
      pubkey: no0x(v.pubkey),
      withdrawal_credentials: no0x(v.withdrawalCredentials),
      amount: Number(v.amountGwei),
      signature: no0x(v.signature),
      deposit_message_root: no0x(v.depositMessageRoot),
      deposit_data_root: no0x(v.depositDataRoot),
      fork_version: no0x(v.forkVersion),
      network_name: v.networkName,
      deposit_cli_version: "2.7.0",
    }));
    return { outcome: "OK" as const, keystores, depositData };
  };
}
