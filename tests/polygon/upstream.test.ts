import assert from "node:assert/strict";
import { createServer } from "node:http";
import type { AddressInfo } from "node:net";
import { after, describe, it } from "node:test";
import request from "supertest";
import { ROLES } from "../../devnet/polygon/scenario.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";
import { startPolygonEnv } from "./setup.ts";

const body = { stake_account_address: ROLES.delegators[0] };

describe("Polygon rewards when the L1 node fails", () => {
  const cleanups: (() => Promise<void>)[] = [];
  after(async () => {
    for (const c of cleanups.reverse()) await c();
  });

  it("node down → 502 for pending rewards; the APR is still served from the stored snapshots", async () => {
    const env = await startPolygonEnv({ days: 2 });
    cleanups.push(() => env.h.close());
    // Before the worker's first snapshot the APR is not indexed yet, and the answer says when to retry.
    const early = await request(env.h.app).get("/api/apr").set("x-api-key", env.key);
    assert.equal(early.status, 503, JSON.stringify(early.body));
    assert.equal(early.body.code, "NOT_INDEXED_YET");
    assert.equal(early.headers["retry-after"], "60");
    await env.snapshotter.runOnce();
    const apr = await request(env.h.app).get("/api/apr").set("x-api-key", env.key);
    assert.equal(apr.status, 200, JSON.stringify(apr.body));
    // A settled head behind the block already read (a node gone back) is refused, and
    // nothing is written until the node is back.
    const snapshots = async () => [
      ...(await env.h.sql`select * from polygon_snapshots order by block, source`),
    ];
    const kept = await snapshots();
    await env.h.sql`update polygon_log_cursors set last_block = last_block + 1000000`;
    await assert.rejects(env.snapshotter.runOnce(), (e: Error & { status?: number }) => {
      assert.equal(e.status, 502);
      assert.match(e.message, /^Ethereum L1 node answered settled head \d+, behind block \d+ already read$/);
      return true;
    });
    assert.deepEqual(await snapshots(), kept);
    await env.h.sql`update polygon_log_cursors set last_block = last_block - 1000000`;
    await env.devnet.close();
    const res = await request(env.h.app).post("/api/pending-rewards").set("x-api-key", env.key).send(body);
    assert.equal(res.status, 502, JSON.stringify(res.body));
    assert.equal(res.body.code, "UPSTREAM_UNAVAILABLE");
    assert.deepEqual(Object.keys(res.body).sort(), ["code", "error"]);
    const again = await request(env.h.app).get("/api/apr").set("x-api-key", env.key);
    assert.equal(again.status, 200, JSON.stringify(again.body));
    assert.deepEqual(again.body, apr.body);
    await assert.rejects(
      env.snapshotter.runOnce(),
      (e: { code?: string }) => e.code === "UPSTREAM_UNAVAILABLE",
    );
  });

  it("a node that never answers → 504 within the configured timeout; a node that is not JSON-RPC → 502", async () => {
    const silent = createServer(() => {});
    const html = createServer((_req, res) =>
      res.writeHead(200, { "content-type": "text/html" }).end("<html>"),
    );
    for (const s of [silent, html]) {
      await new Promise<void>((r) => s.listen(0, "127.0.0.1", r));
      cleanups.push(
        () =>
          new Promise<void>((r) => {
            s.closeAllConnections();
            s.close(() => r());
          }),
      );
    }
    const url = (s: typeof silent) => `http://127.0.0.1:${(s.address() as AddressInfo).port}`;
    const slow = await createControlPlaneHarness({
      CONTROL_PLANE_AREAS: "polygon-rewards",
      POLYGON_L1_RPC_URL: url(silent),
      POLYGON_TIMEOUT_MS: "300",
    });
    cleanups.push(() => slow.close());
    const org = await makeOrganisation(slow.db);
    const start = Date.now();
    const timed = await request(slow.app)
      .post("/api/pending-rewards")
      .set("x-api-key", org.apiKey)
      .send(body);
    assert.equal(timed.status, 504, JSON.stringify(timed.body));
    assert.equal(timed.body.code, "UPSTREAM_TIMEOUT");
    assert.ok(Date.now() - start < 3000);

    const bad = await createControlPlaneHarness({
      CONTROL_PLANE_AREAS: "polygon-rewards",
      POLYGON_L1_RPC_URL: url(html),
    });
    cleanups.push(() => bad.close());
    const org2 = await makeOrganisation(bad.db);
    const res = await request(bad.app).post("/api/pending-rewards").set("x-api-key", org2.apiKey).send(body);
    assert.equal(res.status, 502, JSON.stringify(res.body));
    assert.equal(res.body.code, "UPSTREAM_UNAVAILABLE");
  });

  it("a validator id without a ValidatorShare → 503 POLYGON_VALIDATOR_NOT_FOUND; a ValidatorShare of another id too", async () => {
    const env = await startPolygonEnv({ days: 1, env: { POLYGON_VALIDATOR_ID: "99" } });
    cleanups.push(() => env.close());
    const res = await request(env.h.app).post("/api/pending-rewards").set("x-api-key", env.key).send(body);
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.equal(res.body.code, "POLYGON_VALIDATOR_NOT_FOUND");
    const other = await createControlPlaneHarness({
      CONTROL_PLANE_AREAS: "polygon-rewards",
      POLYGON_L1_RPC_URL: env.devnet.url,
      POLYGON_VALIDATOR_SHARE: env.devnet.otherShare,
    });
    cleanups.push(() => other.close());
    const org = await makeOrganisation(other.db);
    const wrong = await request(other.app)
      .post("/api/pending-rewards")
      .set("x-api-key", org.apiKey)
      .send(body);
    assert.equal(wrong.status, 503, JSON.stringify(wrong.body));
    assert.match(wrong.body.error, /belongs to validator 17/);
    // The POL token (a contract without validatorId) and an account without code: misconfigured, not a 502.
    for (const address of [env.devnet.pol, ROLES.delegators[0]]) {
      const h = await createControlPlaneHarness({
        CONTROL_PLANE_AREAS: "polygon-rewards",
        POLYGON_L1_RPC_URL: env.devnet.url,
        POLYGON_VALIDATOR_SHARE: address,
      });
      cleanups.push(() => h.close());
      const o = await makeOrganisation(h.db);
      const res = await request(h.app).post("/api/pending-rewards").set("x-api-key", o.apiKey).send(body);
      assert.equal(res.status, 503, JSON.stringify(res.body));
      assert.match(res.body.error, /is not a ValidatorShare/);
    }
  });
});
