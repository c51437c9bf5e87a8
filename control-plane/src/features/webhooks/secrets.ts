import { hkdfSync } from "node:crypto";
import { createKeyCipher } from "../../platform/secret-envelope.ts";

/**
 * Endpoint secrets at rest: they sign every delivery, so they are kept recoverable, in the AES-256-GCM
 * envelope of validator keys (beacon-provisioning's port) under a key derived from ETH_KEY_ENCRYPTION_KEY
 * for this purpose only (HKDF-SHA256, info `stake:webhook-secrets:v1`): one operator key to keep, and a
 * webhook ciphertext can never be read as a validator key's. The endpoint id is the associated data, so a
 * secret copied onto another endpoint's row fails to decrypt.
 */
export function createSecretBox(keyEncryptionKeyHex: string) {
  const kek = Buffer.from(keyEncryptionKeyHex, "hex");
  const derived = Buffer.from(hkdfSync("sha256", kek, Buffer.alloc(0), "stake:webhook-secrets:v1", 32));
  const cipher = createKeyCipher(derived.toString("hex"));
  return {
    seal: (secret: string, endpointId: string) => cipher.encrypt(Buffer.from(secret), endpointId),
    open: (envelope: string, endpointId: string) =>
      Buffer.from(cipher.decrypt(envelope, endpointId)).toString(),
  };
}

export type SecretBox = ReturnType<typeof createSecretBox>;
