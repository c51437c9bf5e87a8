import {
  createCipheriv,
  createDecipheriv,
  createHash,
  pbkdf2Sync,
  randomBytes,
  randomUUID,
} from "node:crypto";

/** EIP-2335 BLS keystore (version 4), PBKDF2-HMAC-SHA256 + AES-128-CTR, as validator clients import it. */
export interface Keystore {
  crypto: {
    kdf: {
      function: "pbkdf2";
      params: { dklen: 32; c: number; prf: "hmac-sha256"; salt: string };
      message: "";
    };
    checksum: { function: "sha256"; params: Record<string, never>; message: string };
    cipher: { function: "aes-128-ctr"; params: { iv: string }; message: string };
  };
  description: string;
  pubkey: string;
  path: string;
  uuid: string;
  version: 4;
}

/** EIP-2335 password processing: NFKD, then drop C0, C1 and Delete control codes. */
export function normalizePassword(password: string): Buffer {
  // biome-ignore lint/suspicious/noControlCharactersInRegex: stripping control codes is the rule
  return Buffer.from(password.normalize("NFKD").replace(/[\u0000-\u001f\u007f-\u009f]/g, ""), "utf8");
}

export function encryptKeystore(args: {
  secret: Uint8Array;
  password: string;
  pubkey: string;
  path: string;
  iterations?: number;
  /** Fixed only in golden tests. */
  salt?: Uint8Array;
  iv?: Uint8Array;
  uuid?: string;
}): Keystore {
  const c = args.iterations ?? 262144;
  const salt = Buffer.from(args.salt ?? randomBytes(32));
  const iv = Buffer.from(args.iv ?? randomBytes(16));
  const dk = pbkdf2Sync(normalizePassword(args.password), salt, c, 32, "sha256");
  const cipher = createCipheriv("aes-128-ctr", dk.subarray(0, 16), iv);
  const message = Buffer.concat([cipher.update(args.secret), cipher.final()]);
  const checksum = createHash("sha256").update(dk.subarray(16, 32)).update(message).digest("hex");
  return {
    crypto: {
      kdf: {
        function: "pbkdf2",
        params: { dklen: 32, c, prf: "hmac-sha256", salt: salt.toString("hex") },
        message: "",
      },
      checksum: { function: "sha256", params: {}, message: checksum },
      cipher: {
        function: "aes-128-ctr",
        params: { iv: iv.toString("hex") },
        message: message.toString("hex"),
      },
    },
    description: "",
    pubkey: args.pubkey.replace(/^0x/, ""),
    path: args.path,
    uuid: args.uuid ?? randomUUID(),
    version: 4,
  };
}

export function decryptKeystore(ks: Keystore, password: string): Uint8Array {
  const p = ks.crypto.kdf.params;
  const dk = pbkdf2Sync(normalizePassword(password), Buffer.from(p.salt, "hex"), p.c, p.dklen, "sha256");
  const message = Buffer.from(ks.crypto.cipher.message, "hex");
  const checksum = createHash("sha256").update(dk.subarray(16, 32)).update(message).digest("hex");
  if (checksum !== ks.crypto.checksum.message) throw new Error("wrong keystore password");
  const decipher = createDecipheriv(
    "aes-128-ctr",
    dk.subarray(0, 16),
    Buffer.from(ks.crypto.cipher.params.iv, "hex"),
  );
  return new Uint8Array(Buffer.concat([decipher.update(message), decipher.final()]));
}
