/**
 * `npm run bench:ledger-scripts`: Redis's own time per reservation in the gateway's two ledger scripts,
 * `reserve.lua` and `finalize.lua` ("registered", with the usage facts), in batches as a gateway sends
 * them at c100 (BENCH_BATCH items, 27 by default), from `INFO commandstats` around each call. The gateway
 * bench's c100 throughput depends on Redis's CPU as much as the gateway's (both share the two cores), and
 * this isolates it. With BENCH_BASELINE_DIR (an installed worktree of an earlier commit) the two trees'
 * scripts run alternately, BENCH_ROUNDS times each, and the minimum and median of each are compared
 * (the minimum: this machine's drift only ever adds time).
 *   REDIS_URL (default 127.0.0.1:6379; keys under a fresh prefix, deleted at the end)
 */
import { spawnSync } from "node:child_process";
import { ROOT } from "../lib/infra.ts";
import { median } from "./targets.ts";

const BATCH = Number(process.env.BENCH_BATCH ?? "27");
const CALLS = Number(process.env.BENCH_CALLS ?? "400");
const ROUNDS = Number(process.env.BENCH_ROUNDS ?? "6");
const REDIS = process.env.REDIS_URL ?? "redis://127.0.0.1:6379";

/** One run against `tree`'s scripts: µs of Redis time per reserved and per finalized item. */
async function measure(tree: string) {
  const { createRedis } = await import(`${tree}/db/src/redis/client.ts`);
  const { createRedisKeys } = await import(`${tree}/db/src/redis/keys.ts`);
  const S = await import(`${tree}/db/src/redis/scripts.ts`);
  const redis = createRedis(REDIS, { name: "bench-ledger-scripts" });
  const prefix = `bench-ls-${process.pid}-${Date.now()}:`;
  const keys = createRedisKeys(prefix);
  const party = "party_bench";
  const noLimit = { limit: 0, windowMs: 1000, unansweredTtlSeconds: 86_400 };
  // As a gateway runs by default: a party request limit, counted on every call (never reached here).
  const rate = { limit: 1_000_000_000, windowMs: 1000 };
  await redis.hset(keys.gateway.account(party), "balance", (10n ** 18n).toString(), "reserved", "0");
  const evalshaUs = async () =>
    Number(/cmdstat_evalsha:calls=\d+,usec=(\d+)/.exec(await redis.info("commandstats"))?.[1] ?? 0);
  const timed = async (script: { script: unknown }, keyList: string[], args: string[]) => {
    const before = await evalshaUs();
    const replies = (await S.runScript(redis, script.script, keyList, args)) as string[][];
    if (replies[0]?.[0] !== "OK") throw new Error(`${JSON.stringify(replies[0])} from ${tree}`);
    return (await evalshaUs()) - before;
  };
  let reserveUs = 0;
  let finalizeUs = 0;
  for (let call = 0; call < CALLS; call++) {
    const ids = Array.from({ length: BATCH }, (_, i) => `rsv_${call}_${i}`);
    const records = ids.map((_, i) => keys.gateway.reservation(party, `s${call}x${i}`));
    // A realistic cost (0.002 coin) and the fields a gateway sends for a key without caps or limits.
    reserveUs += await timed(
      S.reserveScript,
      [...S.reserveScript.head(keys, party, Date.now()), ...records],
      [
        ...S.reserveScript.shared(Date.now(), rate, noLimit),
        ...ids.flatMap((id, i) =>
          S.reserveScript.item({
            cost: 20_000_000n,
            id,
            idempotencyKey: `idem-${call}-${i}`,
            providerKey: "bench",
            costInUsd: "0.001",
            scope: `s${call}x${i}`,
            keyId: "key_benchbenchbenchbench",
          }),
        ),
      ],
    );
    finalizeUs += await timed(
      S.finalizeScript,
      [...S.finalizeScript.head(keys, party, Date.now()), ...records],
      [
        ...S.finalizeScript.shared(Date.now(), 3600, noLimit),
        ...ids.flatMap((id) =>
          S.finalizeScript.item({
            outcome: "registered",
            expectedId: id,
            httpStatus: 200,
            upstreamMs: 3,
            path: "/v1/bench",
          }),
        ),
      ],
    );
    // Settlement trims the stream as it goes; a stream that only grows would bill its growth to XADD.
    if (call % 50 === 49) await redis.del(keys.gateway.reservationLog(party));
  }
  let cursor = "0";
  do {
    const [next, found] = await redis.scan(cursor, "MATCH", `${prefix}*`, "COUNT", 1000);
    cursor = next;
    if (found.length) await redis.del(...found);
  } while (cursor !== "0");
  await redis.quit();
  const items = CALLS * BATCH;
  return { reserve: reserveUs / items, finalize: finalizeUs / items };
}

const tree = process.argv[2];
if (tree) {
  // A child run: one tree, one line of JSON.
  console.log(JSON.stringify(await measure(tree)));
} else {
  const base = process.env.BENCH_BASELINE_DIR;
  const trees = [...(base ? [{ name: "baseline", dir: base }] : []), { name: "this tree", dir: ROOT }];
  const runs = new Map(trees.map((t) => [t.name, [] as { reserve: number; finalize: number }[]]));
  for (let round = 0; round < ROUNDS; round++)
    for (const t of round % 2 ? [...trees].reverse() : trees) {
      // Each tree's modules in a process of its own (two copies of ioredis, drizzle… in one would mix).
      const out = spawnSync(process.execPath, ["--import", "tsx", "scripts/bench/ledger-scripts.ts", t.dir], {
        cwd: ROOT,
        encoding: "utf8",
      });
      if (out.status !== 0) throw new Error(`${t.name}: ${out.stderr}`);
      const r = JSON.parse(out.stdout.trim().split("\n").at(-1) ?? "{}");
      runs.get(t.name)?.push(r);
      console.log(
        `round ${round + 1} ${t.name.padEnd(9)} reserve ${r.reserve.toFixed(2)} µs/item · finalize ${r.finalize.toFixed(2)} µs/item`,
      );
    }
  const f = (xs: number[]) => `min ${Math.min(...xs).toFixed(2)} · median ${median(xs).toFixed(2)}`;
  console.log(`\nRedis µs per item, batches of ${BATCH}, ${ROUNDS} rounds of ${CALLS} calls:`);
  for (const [name, rs] of runs)
    console.log(
      `${name.padEnd(9)} reserve ${f(rs.map((r) => r.reserve))} · finalize ${f(rs.map((r) => r.finalize))}`,
    );
}
