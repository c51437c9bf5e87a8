import assert from "node:assert/strict";
import { test } from "node:test";
import { ReadThroughCache } from "./cache.ts";

const tick = () => new Promise((r) => setImmediate(r));

test("concurrent misses share one lookup; a hit within the TTL does not look up", async () => {
  let loads = 0;
  const cache = new ReadThroughCache(60_000, async (k) => `${k}:${++loads}`);
  const [a, b] = await Promise.all([cache.get("x"), cache.get("x")]);
  assert.equal(a, "x:1");
  assert.equal(b, "x:1");
  assert.equal(await cache.get("x"), "x:1");
  assert.equal(loads, 1);
});

test("an expired entry answers at once with the old value while one background lookup refreshes it", async () => {
  let loads = 0;
  let release: (() => void) | undefined;
  const cache = new ReadThroughCache(0, async (k) => {
    loads++;
    if (loads > 1) await new Promise<void>((r) => (release = r));
    return `${k}:${loads}`;
  });
  assert.equal(await cache.get("x"), "x:1");
  // TTL 0: every later get finds it expired, but only the first starts a refresh.
  assert.equal(await cache.get("x"), "x:1");
  assert.equal(await cache.get("x"), "x:1");
  assert.equal(loads, 2);
  release?.();
  await tick();
  assert.equal(await cache.get("x"), "x:2");
});

test("a failed refresh keeps the old value and is retried; a failed first lookup is not cached", async () => {
  let fail = false;
  let loads = 0;
  const cache = new ReadThroughCache(0, async (k) => {
    loads++;
    if (fail) throw new Error("database down");
    return `${k}:${loads}`;
  });
  assert.equal(await cache.get("x"), "x:1");
  fail = true;
  assert.equal(await cache.get("x"), "x:1");
  await tick();
  assert.equal(await cache.get("x"), "x:1");
  await tick();
  assert.ok(loads >= 3, "the refresh is retried after a failure");
  await assert.rejects(cache.get("y"), /database down/);
  await tick();
  fail = false;
  assert.match(await cache.get("y"), /^y:/);
});

test("clear() (the invalidation message) makes the next get look up again, not serve the old value", async () => {
  let loads = 0;
  const cache = new ReadThroughCache(60_000, async (k) => `${k}:${++loads}`);
  assert.equal(await cache.get("x"), "x:1");
  cache.clear();
  assert.equal(await cache.get("x"), "x:2");
});

test("bounded: the least recently used entry goes first, the keys in use stay", async () => {
  let loads = 0;
  const cache = new ReadThroughCache(60_000, async (k) => `${k}:${++loads}`, { maxEntries: 3 });
  for (const k of ["a", "b", "c"]) await cache.get(k);
  await cache.get("a"); // a is now the most recently used
  await cache.get("d"); // evicts b
  assert.equal(loads, 4);
  assert.equal(await cache.get("a"), "a:1", "kept");
  assert.equal(await cache.get("c"), "c:3", "kept");
  assert.equal(await cache.get("b"), "b:5", "evicted, so looked up again");
});

test("fix: while lookups fail, a value is served for at most maxStaleMs, then the lookup's failure is answered", async (t) => {
  t.mock.timers.enable({ apis: ["Date"], now: 1_000_000 });
  let fail = false;
  let loads = 0;
  const cache = new ReadThroughCache(
    1_000,
    async (k) => {
      loads++;
      if (fail) throw new Error("database down");
      return `${k}:${loads}`;
    },
    { maxStaleMs: 10_000 },
  );
  assert.equal(await cache.get("x"), "x:1");
  fail = true;
  t.mock.timers.tick(9_000);
  assert.equal(await cache.get("x"), "x:1", "stale within the bound: still served");
  await tick();
  t.mock.timers.tick(1_001);
  await assert.rejects(cache.get("x"), /database down/, "past the bound the old value is gone");
  fail = false;
  await tick();
  assert.match(await cache.get("x"), /^x:\d+$/);
});

test("dropTagged drops the entries carrying the tag and the lookups in flight, and keeps every other entry", async () => {
  let loads = 0;
  let release: (() => void) | undefined;
  const cache = new ReadThroughCache(
    60_000,
    async (k) => {
      loads++;
      if (k === "slow" && !release) await new Promise<void>((r) => (release = r));
      return { k, owner: k.startsWith("a") ? "user:a" : "user:b", n: loads };
    },
    { tagsOf: (v) => [v.owner] },
  );
  await cache.get("a1");
  await cache.get("a2");
  await cache.get("b1");
  const slow = cache.get("slow");
  await tick();
  assert.equal(loads, 4);
  cache.dropTagged("user:a");
  // The in-flight lookup may have read the row before the change: dropped too.
  release?.();
  await slow;
  assert.equal((await cache.get("b1")).n, 3, "b1 kept");
  assert.equal((await cache.get("a1")).n, 5, "a1 looked up again");
  assert.equal((await cache.get("a2")).n, 6, "a2 looked up again");
  assert.equal((await cache.get("slow")).n, 7, "the lookup in flight was dropped");
  cache.drop("b1");
  assert.equal((await cache.get("b1")).n, 8);
});
