/** Longest idempotency key accepted: a key is stored in Redis for the idempotency window and in Postgres. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 255;

// Visible ASCII only (RFC 5234 VCHAR): nothing that logs, URL-encodes or compares differently elsewhere.
const VISIBLE_ASCII = /^[\x21-\x7e]+$/;

/**
 * The `idempotency-key` header, from every value sent (Node would join repeats with ", ", which could not
 * tell a key sent twice, the spec's "not an array" 400, from one that merely contains a comma).
 * Its scope (idempotency key, provider key, party id) is enforced by the reservation record key.
 */
export function idempotencyKeyOf(
  values: readonly string[],
):
  | { ok: true; key: string }
  | { ok: false; code: "IDEMPOTENCY_KEY_REQUIRED" | "IDEMPOTENCY_KEY_ARRAY" | "IDEMPOTENCY_KEY_INVALID" } {
  if (values.length === 0) return { ok: false, code: "IDEMPOTENCY_KEY_REQUIRED" };
  if (values.length > 1) return { ok: false, code: "IDEMPOTENCY_KEY_ARRAY" };
  const key = values[0] as string;
  if (key.length === 0) return { ok: false, code: "IDEMPOTENCY_KEY_REQUIRED" };
  if (key.length > IDEMPOTENCY_KEY_MAX_LENGTH || !VISIBLE_ASCII.test(key))
    return { ok: false, code: "IDEMPOTENCY_KEY_INVALID" };
  return { ok: true, key };
}
