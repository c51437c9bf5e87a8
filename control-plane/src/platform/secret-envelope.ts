import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";

/**
 * AES-256-GCM envelope for validator signing keys: `v1.<iv>.<tag>.<ciphertext>` (base64url). The pubkey is
 * the associated data, so a ciphertext copied onto another validator's row fails to decrypt.
 */
const TAG_BYTES = 16;

export function createKeyCipher(kekHex: string) {
  const kek = Buffer.from(kekHex, "hex");
  if (kek.length !== 32) throw new Error("key-encryption key must be 32 bytes");
  return {
    encrypt(secret: Uint8Array, pubkey: string): string {
      const iv = randomBytes(12);
      const cipher = createCipheriv("aes-256-gcm", kek, iv, { authTagLength: TAG_BYTES });
      cipher.setAAD(Buffer.from(pubkey));
      const ct = Buffer.concat([cipher.update(secret), cipher.final()]);
      return ["v1", iv, cipher.getAuthTag(), ct]
        .map((p) => (typeof p === "string" ? p : p.toString("base64url")))
        .join(".");
    },
    decrypt(envelope: string, pubkey: string): Uint8Array {
      const [v, iv, tag, ct] = envelope.split(".");
      if (v !== "v1" || !iv || !tag || !ct) throw new Error("unknown key envelope");
      const authTag = Buffer.from(tag, "base64url");
      // GCM accepts tags down to 4 bytes unless told otherwise; a short tag is forgeable, so only 16 bytes.
      if (authTag.length !== TAG_BYTES) throw new Error("key envelope tag must be 16 bytes");
      const decipher = createDecipheriv("aes-256-gcm", kek, Buffer.from(iv, "base64url"), {
        authTagLength: TAG_BYTES,
      });
      decipher.setAAD(Buffer.from(pubkey));
      decipher.setAuthTag(authTag);
      return new Uint8Array(Buffer.concat([decipher.update(Buffer.from(ct, "base64url")), decipher.final()]));
    },
  };
}

export type KeyCipher = ReturnType<typeof createKeyCipher>;
