/**
 * The messages on the gateways' cache-invalidation channel (`keys.gateway.invalidations`): each names what
 * changed, so a gateway drops only the cached entries it concerns (docs/architecture.md §6 step 1). A
 * user's key or cap change then costs every other party nothing; before, each change cleared every
 * gateway's whole cache, and at 70–165 changes a second another party's throughput fell to 53–67 %.
 */
export const invalidation = {
  /** One gateway key (deactivated, rotated, its limits or caps changed). */
  key: (keyId: string) => `key:${keyId}`,
  /** Every key of one gateway user (its party created, the party's caps changed, keys issued). */
  user: (userId: string) => `user:${userId}`,
  /** One provider record. */
  provider: (providerKey: string) => `provider:${providerKey}`,
  /** The coin rate. */
  rate: "rate",
  /** Everything (a recovery, or a message from a release before these). */
  all: "all",
} as const;

export type Invalidation =
  | { kind: "key" | "user" | "provider"; id: string }
  | { kind: "rate" }
  | { kind: "all" };

/** A message → what to drop; anything unknown drops everything, so an older publisher stays safe. */
export function parseInvalidation(message: string): Invalidation {
  const colon = message.indexOf(":");
  const kind = colon === -1 ? message : message.slice(0, colon);
  const id = message.slice(colon + 1);
  if ((kind === "key" || kind === "user" || kind === "provider") && colon > 0 && id.length > 0)
    return { kind, id };
  if (message === "rate") return { kind: "rate" };
  return { kind: "all" };
}
