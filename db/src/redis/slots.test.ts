import assert from "node:assert/strict";
import { test } from "node:test";
import { Command } from "ioredis";
import { createRedisKeys, SETTLE_DIRTY_BUCKETS, settleDirtyBucket } from "./keys.ts";
import { finalizeScript, reserveScript, settleScript } from "./scripts.ts";

// Redis Cluster runs a script or a MULTI only when all its keys hash to one slot (else CROSSSLOT): the
// slots here are computed by ioredis, as its cluster client routes the commands.
const slot = (key: string) => new Command("get", [key]).getSlot();
const keys = createRedisKeys("stake:");
const party = "party_Vvii5gjSgd9EF8RZb7BidA";

function oneSlot(what: string, list: string[]) {
  const slots = new Set(list.map(slot));
  assert.equal(slots.size, 1, `${what}: ${list.join(", ")} span slots ${[...slots].join(", ")}`);
}

test("every Lua script's keys for one party hash to one slot", () => {
  const record = keys.gateway.reservation(party, "c2NvcGU");
  for (const script of [reserveScript, finalizeScript, settleScript])
    oneSlot(script.script.name, [
      ...script.head(keys, party, Date.now()),
      record,
      record.replace("c2NvcGU", "b3RoZXI"),
    ]);
  oneSlot("credit", [keys.gateway.account(party), keys.gateway.applied(party)]);
});

test("the keys one MULTI or BullMQ script takes together share a slot", () => {
  oneSlot("sui follows", [
    keys.tenancy.suiFollowsOf("org_a"),
    keys.tenancy.suiFollowsOf("org_b"),
    keys.tenancy.suiFollowed,
  ]);
  // BullMQ names its keys `<prefix>:<queue>:<suffix>`; its scripts take several queues' keys at once.
  oneSlot(
    "BullMQ queues",
    ["provision", "registrations", "sui-delegator"].flatMap((q) =>
      ["wait", "active", "meta", "events", "1"].map((s) => `${keys.queuePrefix}:${q}:${s}`),
    ),
  );
});

test("the dirty set's buckets spread over slots, and a party always falls in the same one", () => {
  const buckets = keys.gateway.settleDirtyBuckets;
  assert.equal(buckets.length, SETTLE_DIRTY_BUCKETS);
  assert.ok(new Set(buckets.map(slot)).size >= SETTLE_DIRTY_BUCKETS - 1, "one slot per bucket, nearly");
  assert.equal(keys.gateway.settleDirty(party), buckets[settleDirtyBucket(party)]);
  // Fixed values (FNV-1a of "a" is 0xe40c292c): a gateway and a worker of different releases must agree.
  assert.equal(settleDirtyBucket("a"), 0xe40c292c % SETTLE_DIRTY_BUCKETS);
  assert.equal(settleDirtyBucket(party), 11);
  const counts = new Array(SETTLE_DIRTY_BUCKETS).fill(0);
  for (let i = 0; i < 1600; i++) counts[settleDirtyBucket(`party_${i}`)]++;
  assert.ok(Math.min(...counts) > 50, `1,600 parties spread over every bucket: ${counts.join(" ")}`);
});
