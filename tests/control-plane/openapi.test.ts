import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import request from "supertest";
import { ENDPOINTS } from "../../control-plane/src/openapi.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";

let h: Awaited<ReturnType<typeof createControlPlaneHarness>>;
before(async () => {
  h = await createControlPlaneHarness();
});
after(() => h.close());

test("/openapi.json is an OpenAPI 3.1 document with every endpoint and its request schema", async () => {
  const res = await request(h.app).get("/openapi.json");
  assert.equal(res.status, 200);
  assert.match(res.headers["content-type"] ?? "", /application\/json/);
  const doc = res.body;
  assert.equal(doc.openapi, "3.1.0");
  for (const e of ENDPOINTS) {
    const op = doc.paths[e.path]?.[e.method];
    assert.ok(op, `${e.method} ${e.path} documented`);
    if (e.body) assert.equal(op.requestBody.content["application/json"].schema.type, "object", e.path);
    if (e.auth) assert.ok(doc.components.securitySchemes[e.auth], e.auth);
  }
  const delegate = doc.paths["/api/v1/staking/delegate"].post;
  assert.deepEqual(delegate.requestBody.content["application/json"].schema.required.sort(), [
    "amount",
    "delegatorAddress",
  ]);
  const reservations = doc.paths["/api/reservations"].get.parameters.map((p: { name: string }) => p.name);
  assert.deepEqual(reservations.sort(), ["page", "pageSize"]);
});

test("every documented endpoint exists on the app (the table cannot drift from the routes)", async () => {
  for (const e of ENDPOINTS) {
    const path = e.path.replace("{keyId}", "key_1111111111111111").replace("{id}", "gwk_1111111111111111");
    const res = await request(h.app)[e.method](path).send({});
    const body = JSON.stringify(res.body);
    assert.ok(
      !(res.status === 404 && /No such endpoint/.test(body)),
      `${e.method.toUpperCase()} ${e.path} answered the catch-all 404`,
    );
  }
  const unknown = await request(h.app).get("/api/not-documented");
  assert.equal(unknown.status, 404);
  assert.match(JSON.stringify(unknown.body), /No such endpoint/, "the catch-all the check above relies on");
});

test("/docs serves the interactive reference and its assets from the package", async () => {
  const page = await request(h.app).get("/docs");
  assert.equal(page.status, 200);
  assert.match(page.text, /swagger-ui-bundle\.js/);
  for (const asset of [
    "/docs/assets/swagger-ui-bundle.js",
    "/docs/assets/swagger-ui.css",
    "/docs/assets/init.js",
  ]) {
    const res = await request(h.app).get(asset);
    assert.equal(res.status, 200, asset);
    assert.ok(res.text.length > 0 || (res.body as Buffer).length > 0, asset);
  }
});
