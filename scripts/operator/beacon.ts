import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { blsKeyFromSecret } from "../../control-plane/src/features/beacon-provisioning/bls.ts";
import { hexOf } from "../../control-plane/src/features/beacon-provisioning/builder.ts";
import { signingKeyPath } from "../../control-plane/src/features/beacon-provisioning/eip2333.ts";
import { createKeyCipher } from "../../control-plane/src/features/beacon-provisioning/key-encryption.ts";
import { encryptKeystore } from "../../control-plane/src/features/beacon-provisioning/keystore.ts";
import { createProvisioningRepo } from "../../control-plane/src/features/beacon-provisioning/repo.ts";
import { type Command, requirePositional, UsageError } from "./context.ts";

const no0x = (h: string) => h.replace(/^0x/, "");

/** Beacon-chain provisioning: hand validator keys to the operator's validator client. */
export const beaconCommands: Record<string, Command> = {
  "keystores export": {
    usage: "keystores export <provisionId> --out DIR [--password-file F] [--iterations N]",
    summary: "write EIP-2335 keystores and deposit-data JSON of a provision",
    async run(ctx, args) {
      const provisionId = requirePositional(args, 0, "provisionId");
      const out = args.flags.out;
      if (typeof out !== "string") throw new UsageError("--out DIR is required");
      const pwFile = args.flags["password-file"];
      const password =
        typeof pwFile === "string" ? readFileSync(pwFile, "utf8").trimEnd() : ctx.config.keystorePassword;
      if (!password) throw new UsageError("give --password-file F or KEYSTORE_PASSWORD");
      const iterations = args.flags.iterations === undefined ? 262144 : Number(args.flags.iterations);
      if (!Number.isInteger(iterations) || iterations < 1)
        throw new UsageError("--iterations must be a positive integer");

      const repo = createProvisioningRepo(ctx.db);
      const provision = await repo.findProvision(provisionId);
      if (!provision) throw new UsageError(`no provision ${provisionId}`);
      if (provision.status !== "CREATED")
        throw new UsageError(`provision is ${provision.status}, not CREATED`);
      if (ctx.config.keyEncryptionKeyRefused) throw new UsageError(ctx.config.keyEncryptionKeyRefused);
      const cipher = createKeyCipher(ctx.config.keyEncryptionKey);
      const rows = await repo.listValidators(provisionId);
      mkdirSync(out, { recursive: true });
      const stamp = Math.floor(Date.now() / 1000);
      const files: string[] = [];
      for (const v of rows) {
        const secret = cipher.decrypt(v.encryptedSigningKey, v.pubkey);
        // A key that does not match its stored pubkey must never reach a validator client.
        if (hexOf(blsKeyFromSecret(BigInt(hexOf(secret))).publicKey) !== v.pubkey) {
          throw new Error(`stored key of ${v.pubkey} does not match its pubkey`);
        }
        const keyPath = signingKeyPath(v.keyIndex);
        const file = path.join(out, `keystore-${keyPath.replaceAll("/", "_")}-${stamp}.json`);
        writeFileSync(
          file,
          JSON.stringify(encryptKeystore({ secret, password, pubkey: v.pubkey, path: keyPath, iterations })),
          { mode: 0o600 },
        );
        files.push(file);
      }
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
      const depositFile = path.join(out, `deposit_data-${stamp}.json`);
      writeFileSync(depositFile, JSON.stringify(depositData));
      return {
        data: { provisionId, keystores: files, depositData: depositFile },
        text: `wrote ${files.length} keystores and ${depositFile}`,
      };
    },
  },
};
