import assert from "node:assert/strict";
import { test } from "node:test";
import { scanKeys } from "@stake/db/redis/client";
import { reservations } from "@stake/db/schema/index";
import { eq } from "drizzle-orm";
import { request } from "undici";
import { readBalance } from "../../control-plane/src/features/gateway-settlement/funding.ts";
import { eventually, sleep } from "../helpers/eventually.ts";
import { assertBooks, kill, paidLoad, type Stack, settledCount, startStack } from "./stack.ts";

// Fault tests, real processes and real signals (docs/gateway.md, "Faults and their runbooks").

async function statuses(s: Stack, partyId: string) {
  const rows = await s.db
    .select({ key: reservations.idempotencyKey, status: reservations.status })
    .from(reservations)
    .where(eq(reservations.partyId, partyId));
  return new Map(rows.map((r) => [r.key, r.status]));
}

/**
 * Waits until the worker has settled or released everything (nothing reserved, nothing in flight) and
 * Postgres holds `charged` settled reservations.
 */
async function settledOut(s: Stack, partyId: string, charged: number) {
  await eventually(
    async () =>
      (await readBalance(s.redis, s.keys, partyId)).reserved === 0n &&
      (await settledCount(s, partyId)) >= charged,
    { what: "the worker to settle and reap everything" },
  ).catch(async (err: Error) => {
    const { reserved } = await readBalance(s.redis, s.keys, partyId);
    const settled = await settledCount(s, partyId);
    throw new Error(`${err.message}: reserved ${reserved}, settled ${settled} of ${charged} served`);
  });
}

test("Redis SIGKILLed under paid load, restarted with the production config (AOF, appendfsync always): every served request charged exactly once, none left in flight", async () => {
  // The reaper must not release a reservation whose finalize is waiting for Redis to come back: its
  // threshold exceeds the outage plus the restart (60 s in production, 12 s here).
  const reapAfterMs = 12_000;
  const s = await startStack({ redisFsync: "always", reapAfterMs });
  try {
    const { partyId, apiKey } = await s.seed();
    const [gateway] = await Promise.all([s.gateway(), s.worker()]);
    const load = paidLoad(gateway.url, apiKey, { concurrency: 4 });
    await load.serves(50);
    s.killRedis();
    // The outage under test: requests arrive while Redis is gone.
    await sleep(1000);
    await s.restartRedis();
    await load.serves(50);
    const answers = await load.stop();
    const served = load.served();
    assert.ok(served > 20, `served ${served} (${JSON.stringify([...answers])})`);

    await settledOut(s, partyId, served);
    const charged = await settledCount(s, partyId);
    // appendfsync always: every reservation Redis acknowledged survived the kill, and the gateway retried
    // its finalizes until Redis was back, so no served request went uncharged.
    assert.equal(served - charged, 0, `served-but-uncharged (answers ${JSON.stringify([...answers])})`);
    await assertBooks(s, partyId, served);
  } finally {
    await s.close();
  }
});

test("a gateway SIGKILLed with requests in flight: those the provider had not answered are released, those mid-body stay charged; a second gateway serves throughout", async () => {
  const s = await startStack();
  try {
    const { partyId, apiKey } = await s.seed();
    const [a, b] = await Promise.all([s.gateway("gateway-a"), s.gateway("gateway-b"), s.worker()]);
    const load = paidLoad(b.url, apiKey, { concurrency: 2 });
    const send = (path: string, key: string) =>
      request(`${a.url}/gateway/echo${path}`, {
        headers: { "x-gateway-api-key": apiKey, "idempotency-key": key },
      });
    // /hang: the provider never answers (in flight); /slow: 200 then a body that never ends (mid-body).
    const waiting = ["hang-1", "hang-2", "hang-3"].map((k) => send("/hang", k).catch(() => null));
    const streaming = await Promise.all(["slow-1", "slow-2", "slow-3"].map((k) => send("/slow", k)));
    for (const r of streaming) {
      assert.equal(r.statusCode, 200);
      // Read on: a client that stops reading stalls the provider's body past the upstream timeout.
      r.body.on("data", () => {}).on("error", () => {});
    }
    // Kill only once Redis shows the state under test: the hanging ones in flight (or already failed by
    // the gateway's upstream timeout, released either way), the streaming ones registered (or settled).
    const recordKeys = () => scanKeys(s.redis, s.keys.gateway.reservation(partyId, "*"));
    await eventually(
      async () => {
        const fields = await Promise.all((await recordKeys()).map((k) => s.redis.hmget(k, "i", "s")));
        const status = new Map(fields.map(([k, st]) => [k, st]));
        const hanging = ["hang-1", "hang-2", "hang-3"].every((k) => status.get(k) !== undefined);
        // The running worker may already have settled a registered one.
        const charged = (k: string) => status.get(k) === "registered" || status.get(k) === "settled";
        return hanging && ["slow-1", "slow-2", "slow-3"].every(charged);
      },
      { what: "three requests in flight and three mid-body" },
    );
    await kill(a);
    await Promise.all(waiting);

    // The second gateway keeps serving while the worker reaps what the dead one left in flight.
    await eventually(
      async () => {
        const fields = await Promise.all((await recordKeys()).map((k) => s.redis.hmget(k, "i", "s")));
        return fields.filter(([k, st]) => k?.startsWith("hang-") && st === "failed").length === 3;
      },
      { what: "the worker to release the three requests the killed gateway left in flight" },
    );
    await load.serves(20);
    const answers = await load.stop();
    assert.deepEqual(
      [...answers.keys()],
      [200],
      `the second gateway answered every paid request: ${load.describe()}`,
    );
    await settledOut(s, partyId, load.served() + 3);
    const byKey = await statuses(s, partyId);
    for (const k of ["hang-1", "hang-2", "hang-3"]) assert.equal(byKey.get(k), "failed", `${k} released`);
    for (const k of ["slow-1", "slow-2", "slow-3"]) assert.equal(byKey.get(k), "settled", `${k} charged`);
    await assertBooks(s, partyId, load.served() + 3);
  } finally {
    await s.close();
  }
});
