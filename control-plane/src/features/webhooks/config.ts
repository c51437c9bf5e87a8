import { BlockList, isIP } from "node:net";
import { z } from "zod";

const int = (min: number, fallback: number, description: string) =>
  z.coerce.number().int().min(min).default(fallback).describe(description);

type Range = { address: string; prefix: number; family: "ipv4" | "ipv6" };

/** A comma-separated list of CIDR ranges (`10.0.0.0/8,fd00::/8`): the ranges, or the first item that is not one. */
function parseCidrs(v: string): Range[] | string {
  const ranges: Range[] = [];
  for (const item of v
    .split(",")
    .map((s) => s.trim())
    .filter(Boolean)) {
    const [address = "", bits] = item.split("/");
    const family = isIP(address);
    const prefix = bits === undefined ? (family === 6 ? 128 : 32) : Number(bits);
    if (!family || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 6 ? 128 : 32)) return item;
    ranges.push({ address, prefix, family: family === 6 ? "ipv6" : "ipv4" });
  }
  return ranges;
}

/**
 * The webhooks area's variables, composed into the control plane's (`config.ts`). The
 * delivery bounds are the operator's, not the tenant's: a tenant only chooses a URL and event types.
 */
export const WebhooksConfig = z
  .object({
    WEBHOOK_ALLOW_HTTP: z
      .stringbool()
      .default(false)
      .describe("Deliver to http:// endpoint URLs too (default: https only). For development and tests."),
    WEBHOOK_ALLOWED_CIDRS: z
      .string()
      .default("")
      .refine((v) => typeof parseCidrs(v) !== "string", "a comma-separated list of CIDR ranges")
      .describe(
        "Comma-separated CIDR ranges webhook deliveries may reach although they are loopback, private, link-local or otherwise refused (e.g. 127.0.0.1/32 for a local receiver). Empty by default.",
      ),
    WEBHOOK_ENDPOINTS_PER_OWNER: int(
      1,
      10,
      "Webhook endpoints an organisation or gateway user may hold; past it 409 WEBHOOK_ENDPOINT_LIMIT_REACHED.",
    ),
    WEBHOOK_CONNECT_TIMEOUT_MS: int(100, 5_000, "Timeout of a webhook delivery's TCP and TLS connect."),
    WEBHOOK_TIMEOUT_MS: int(
      100,
      10_000,
      "Whole-attempt bound of a webhook delivery (connect, request, response); past it the attempt failed.",
    ),
    WEBHOOK_MAX_RESPONSE_BYTES: int(
      0,
      65_536,
      "Bytes of a receiver's response body read at most; the rest is discarded and the connection closed.",
    ),
    WEBHOOK_RETRY_BASE_MS: int(
      1,
      5_000,
      "First retry delay of a failed webhook delivery; each next one doubles (with jitter), up to WEBHOOK_RETRY_MAX_MS.",
    ),
    WEBHOOK_RETRY_MAX_MS: int(1, 3_600_000, "Longest delay between two attempts of a webhook delivery."),
    WEBHOOK_MAX_AGE_MS: int(
      1,
      3 * 86_400_000,
      "A webhook delivery not delivered this long after its event is given up (status failed).",
    ),
    WEBHOOK_DISABLE_AFTER_FAILURES: int(
      1,
      100,
      "An endpoint whose last this many attempts all failed, over at least WEBHOOK_DISABLE_AFTER_MS, is disabled (and its owner told with webhook.endpoint_disabled).",
    ),
    WEBHOOK_DISABLE_AFTER_MS: int(
      0,
      5 * 86_400_000,
      "How long an endpoint must have been failing, with no success, before it is disabled.",
    ),
    WEBHOOK_SECRET_OVERLAP_MS: int(
      0,
      86_400_000,
      "After a secret rotation, how long deliveries still carry a signature with the previous secret too.",
    ),
    WEBHOOK_POLL_INTERVAL_MS: int(
      10,
      500,
      "How often the worker looks for due webhook deliveries when idle.",
    ),
    WEBHOOK_CONCURRENCY: int(1, 64, "Webhook deliveries one worker process has in flight at most."),
    WEBHOOK_CONCURRENCY_PER_OWNER: int(
      1,
      8,
      "Webhook deliveries of one organisation or gateway user in flight at most, across all workers: one owner's backlog or slow receiver cannot hold every worker slot.",
    ),
    WEBHOOK_RETENTION_DAYS: int(
      1,
      30,
      "Delivered and failed webhook deliveries older than this many days are deleted by the worker (with their events once no delivery is left).",
    ),
    WEBHOOK_OFFLINE_EPOCHS: int(
      2,
      3,
      "validator.offline fires when a validator's balance fell this many epochs in a row (once per episode).",
    ),
  })
  .transform((e) => {
    const allowed = new BlockList();
    const ranges = parseCidrs(e.WEBHOOK_ALLOWED_CIDRS) as Range[];
    for (const r of ranges) allowed.addSubnet(r.address, r.prefix, r.family);
    return {
      allowHttp: e.WEBHOOK_ALLOW_HTTP,
      /** Ranges the operator lets deliveries reach despite the refused list (checked before it). */
      allowed,
      allowedCidrs: ranges.map((r) => `${r.address}/${r.prefix}`),
      endpointsPerOwner: e.WEBHOOK_ENDPOINTS_PER_OWNER,
      connectTimeoutMs: e.WEBHOOK_CONNECT_TIMEOUT_MS,
      timeoutMs: e.WEBHOOK_TIMEOUT_MS,
      maxResponseBytes: e.WEBHOOK_MAX_RESPONSE_BYTES,
      retryBaseMs: e.WEBHOOK_RETRY_BASE_MS,
      retryMaxMs: e.WEBHOOK_RETRY_MAX_MS,
      maxAgeMs: e.WEBHOOK_MAX_AGE_MS,
      disableAfterFailures: e.WEBHOOK_DISABLE_AFTER_FAILURES,
      disableAfterMs: e.WEBHOOK_DISABLE_AFTER_MS,
      secretOverlapMs: e.WEBHOOK_SECRET_OVERLAP_MS,
      pollIntervalMs: e.WEBHOOK_POLL_INTERVAL_MS,
      concurrency: e.WEBHOOK_CONCURRENCY,
      concurrencyPerOwner: e.WEBHOOK_CONCURRENCY_PER_OWNER,
      retentionMs: e.WEBHOOK_RETENTION_DAYS * 86_400_000,
      offlineEpochs: e.WEBHOOK_OFFLINE_EPOCHS,
    };
  });

export type WebhooksConfig = z.output<typeof WebhooksConfig>;
