import assert from "node:assert/strict";
import { after, describe, it } from "node:test";
import request from "supertest";
import { QUEUES } from "../../control-plane/src/queues.ts";
import { eventually } from "../helpers/eventually.ts";
import { startJobs } from "../helpers/jobs.ts";
import { startPolygonEnv } from "./setup.ts";

const HOUR = 3600;

describe("Polygon snapshots in the worker, on a node that keeps no history", () => {
  const cleanups: (() => Promise<unknown>)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("snapshots each checkpoint from its NewHeaderBlock log; they survive a worker restart; windows without history are null", async () => {
    // A full node: only the last 4 states are kept, so eth_call at a past block fails and nothing is backfilled.
    const env = await startPolygonEnv({
      days: 2,
      pruneHistory: 4,
      env: { POLYGON_POLL_INTERVAL_MS: "200" },
    });
    cleanups.push(() => env.close());
    const start = () => startJobs(env.h, [QUEUES.polygonSnapshots.name]);
    const rows = () =>
      env.h.sql<
        { block: string; source: string }[]
      >`select block::text, source from polygon_snapshots order by block`;
    const waitFor = (block: bigint) =>
      eventually(async () => (await rows()).some((r) => BigInt(r.block) === block), {
        what: `a snapshot at block ${block}`,
      });
    const apr = async () => {
      const res = await request(env.h.app).get("/api/apr").set("x-api-key", env.key);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.data;
    };

    let worker = await start();
    const first = env.history.checkpoints.at(-1)!.block;
    await waitFor(first);
    const initial = await apr();
    assert.equal(initial.block, Number(first));
    assert.deepEqual([initial.apr_1d, initial.apr_7d, initial.apr_30d], [null, null, null]);

    // A day and a half of checkpoints, every 6 h: each one snapshotted while the node still has its state.
    const taken: bigint[] = [];
    for (let i = 1; i <= 6; i++) {
      if (i === 4) {
        // The worker restarts mid-way: what it stored stays, the next one resumes from the log cursor.
        await worker.close();
        worker = await start();
      }
      const r = await env.devnet.checkpoint({ at: env.devnet.now() + 6 * HOUR });
      taken.push(r.blockNumber);
      await waitFor(r.blockNumber);
    }
    await worker.close();
    const stored = await rows();
    for (const block of [first, ...taken]) {
      assert.ok(
        stored.some((r) => BigInt(r.block) === block && r.source === "checkpoint"),
        `checkpoint snapshot at ${block}`,
      );
    }
    assert.equal(stored.filter((r) => r.source === "backfill").length, 0, "a full node backfills nothing");
    const [cursor] = await env.h.sql`select last_block::text from polygon_log_cursors`;
    assert.ok(BigInt(cursor!.last_block) >= taken.at(-1)!);

    const got = await apr();
    assert.equal(got.block, Number(taken.at(-1)));
    assert.equal(typeof got.apr_1d, "number", "a day of the worker's own snapshots gives apr_1d");
    assert.ok(got.apr_1d > 3 && got.apr_1d < 5, JSON.stringify(got));
    assert.equal(got.apr_7d, null);
    assert.equal(got.apr_30d, null);

    // Stopped across three checkpoints, the node has since dropped their state: a pass skips them instead
    // of failing on the first, snapshots the newest and moves its cursor past them.
    const missed: bigint[] = [];
    for (let i = 0; i < 3; i++)
      missed.push((await env.devnet.checkpoint({ at: env.devnet.now() + 6 * HOUR })).blockNumber);
    const latest = (await env.devnet.checkpoint({ at: env.devnet.now() + 6 * HOUR })).blockNumber;
    const pass = await env.snapshotter.runOnce();
    assert.equal(pass.checkpoints, 1, JSON.stringify(pass));
    const after = await rows();
    assert.ok(after.some((r) => BigInt(r.block) === latest));
    assert.ok(!after.some((r) => missed.includes(BigInt(r.block))));
    const [moved] = await env.h.sql`select last_block::text from polygon_log_cursors`;
    assert.equal(BigInt(moved!.last_block), latest);
  });

  it("takes snapshots only of blocks POLYGON_SNAPSHOT_DEPTH below the head, never of the unsettled top", async () => {
    const env = await startPolygonEnv({ days: 2, env: { POLYGON_SNAPSHOT_DEPTH: "3" } });
    cleanups.push(() => env.close());
    const blocks = async () =>
      (await env.h.sql<{ block: string }[]>`select block::text from polygon_snapshots`).map((r) =>
        BigInt(r.block),
      );
    await env.snapshotter.runOnce();
    const checkpoint = (await env.devnet.checkpoint({ at: env.devnet.now() + 6 * HOUR })).blockNumber;
    const pass = await env.snapshotter.runOnce();
    assert.equal(BigInt(pass.head), checkpoint - 3n, "the head it reads is 3 below the latest block");
    assert.ok(!(await blocks()).includes(checkpoint), "the checkpoint at the top is not snapshotted yet");
    // The next checkpoint comes with hourly blocks before it: the first one is now 3 deep or more.
    await env.devnet.checkpoint({ at: env.devnet.now() + 6 * HOUR });
    await env.snapshotter.runOnce();
    assert.ok((await blocks()).includes(checkpoint), "snapshotted once settled");
  });
});
