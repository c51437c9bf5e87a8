import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import path from "node:path";
import { createKeystoreExport } from "@stake/control-plane/operator";
import { type Command, requirePositional, UsageError } from "./context.ts";

/** Beacon-chain provisioning: hand validator keys to the operator's validator client. */
export const beaconCommands: Record<string, Command> = {
  "keystores export": {
    usage: "keystores export <provisionId> --out DIR [--password-file F] [--iterations N]",
    summary: "write EIP-2335 keystores and deposit-data JSON of a provision",
    valueFlags: ["out", "password-file", "iterations"],
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

      if (ctx.config.keyEncryptionKeyRefused)
        throw new UsageError(`ETH_KEY_ENCRYPTION_KEY: ${ctx.config.keyEncryptionKeyRefused}`);
      const exportKeystores = createKeystoreExport({
        db: ctx.db,
        keyEncryptionKey: ctx.config.keyEncryptionKey,
      });
      const result = await exportKeystores({ provisionId, password, iterations });
      if (result.outcome === "NOT_FOUND") throw new UsageError(`no provision ${provisionId}`);
      if (result.outcome === "NOT_CREATED")
        throw new UsageError(`provision is ${result.status}, not CREATED`);
      mkdirSync(out, { recursive: true });
      const stamp = Math.floor(Date.now() / 1000);
      const files: string[] = [];
      for (const k of result.keystores) {
        const file = path.join(out, `keystore-${k.path.replaceAll("/", "_")}-${stamp}.json`);
        writeFileSync(file, JSON.stringify(k.keystore), { mode: 0o600 });
        files.push(file);
      }
      const depositFile = path.join(out, `deposit_data-${stamp}.json`);
      writeFileSync(depositFile, JSON.stringify(result.depositData));
      return {
        data: { provisionId, keystores: files, depositData: depositFile },
        text: `wrote ${files.length} keystores and ${depositFile}`,
      };
    },
  },
};
