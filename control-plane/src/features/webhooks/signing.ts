import { createHmac, randomBytes } from "node:crypto";

/**
 * Standard Webhooks signing (https://www.standardwebhooks.com, spec §Signature scheme): the signed content
 * is `${webhook-id}.${webhook-timestamp}.${body}` (timestamp in Unix seconds), the signature its
 * HMAC-SHA256 under the secret's bytes, base64 (standard alphabet, padded), sent as `v1,<signature>`;
 * several signatures are space-separated (a secret rotation). A secret is `whsec_` + base64 of its bytes.
 */
const PREFIX = "whsec_";
/** The spec asks for 24 to 64 bytes of key. */
const SECRET_BYTES = 32;

export function newSecret(): string {
  return PREFIX + randomBytes(SECRET_BYTES).toString("base64");
}

function keyOf(secret: string): Buffer {
  if (!secret.startsWith(PREFIX)) throw new Error("not a whsec_ secret");
  return Buffer.from(secret.slice(PREFIX.length), "base64");
}

/** One `v1,<base64>` signature of a message. */
export function sign(secret: string, id: string, timestampSeconds: number, body: string): string {
  const mac = createHmac("sha256", keyOf(secret))
    .update(`${id}.${timestampSeconds}.${body}`)
    .digest("base64");
  return `v1,${mac}`;
}

/** The three headers of one attempt, signed with every secret in force (newest first). */
export function signedHeaders(
  secrets: readonly string[],
  id: string,
  timestampSeconds: number,
  body: string,
) {
  return {
    "webhook-id": id,
    "webhook-timestamp": String(timestampSeconds),
    "webhook-signature": secrets.map((s) => sign(s, id, timestampSeconds, body)).join(" "),
  };
}
