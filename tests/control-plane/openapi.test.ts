import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import express from "express";
import request from "supertest";
import { z } from "zod";
import { createAreas } from "../../control-plane/src/app.ts";
import { presentStandard } from "../../control-plane/src/errors.ts";
import type { Authenticators } from "../../control-plane/src/http/auth.ts";
import { assertAllDeclared, registerAreas, route } from "../../control-plane/src/http/route.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";

let h: Awaited<ReturnType<typeof createControlPlaneHarness>>;
before(async () => {
  h = await createControlPlaneHarness();
});
after(() => h.close());

test("/openapi.json documents every declared route with its request and response schemas", async () => {
  const res = await request(h.app).get("/openapi.json");
  assert.equal(res.status, 200);
  assert.match(res.headers["content-type"] ?? "", /application\/json/);
  const doc = res.body;
  assert.equal(doc.openapi, "3.1.0");
  const { areas } = await createAreas({
    config: h.config,
    logger: createLogger({ level: "silent", service: "test" }),
    db: h.db,
    redis: h.redis,
  });
  let count = 0;
  for (const r of areas.flatMap((a) => a.routes)) {
    count++;
    const op = doc.paths[r.path]?.[r.method];
    assert.ok(op, `${r.method} ${r.path} documented`);
    if (r.body) assert.equal(op.requestBody.content["application/json"].schema.type, "object", r.path);
    if (r.security) assert.ok(doc.components.securitySchemes[r.security], r.security);
    for (const [status, spec] of Object.entries(r.responses)) {
      const documented = op.responses[status];
      assert.ok(documented, `${r.method} ${r.path} ${status}`);
      if (spec.body) assert.ok(documented.content["application/json"].schema, `${r.path} ${status} schema`);
    }
  }
  assert.ok(count >= 30, `${count} routes declared`);
  for (const path of ["/healthz", "/readyz", "/openapi.json"]) assert.ok(doc.paths[path]?.get, path);
  const delegate = doc.paths["/api/v1/staking/delegate"].post;
  assert.deepEqual(delegate.requestBody.content["application/json"].schema.required.sort(), [
    "amount",
    "delegatorAddress",
  ]);
  const keys = doc.paths["/user/api-keys"].get.responses["201"].content["application/json"].schema;
  assert.deepEqual(keys.required, ["keys"]);
  const reservations = doc.paths["/api/reservations"].get.parameters.map((p: { name: string }) => p.name);
  assert.deepEqual(reservations.sort(), ["page", "pageSize"]);
});

test("a route without a declaration is refused", () => {
  const logger = createLogger({ level: "silent", service: "test" });
  const declared = route({
    method: "get",
    path: "/declared/{id}",
    summary: "declared",
    params: z.object({ id: z.string() }),
    responses: { 200: { description: "ok" } },
    handler: () => ({ status: 200, body: {} }),
  });
  const areas = [{ tag: "t", present: presentStandard, routes: [declared] }];
  const build = () => {
    const app = express();
    registerAreas(app, areas, { authenticators: {} as Authenticators, json: express.json(), logger });
    return app;
  };
  assert.doesNotThrow(() => assertAllDeclared(build(), areas));
  const direct = build();
  direct.post("/declared/:id", (_req, res) => void res.end());
  assert.throws(() => assertAllDeclared(direct, areas), /route without a declaration: POST \/declared\/:id/);
  const nested = build();
  nested.use(
    "/x",
    express.Router().get("/hidden", (_req, res) => void res.end()),
  );
  assert.throws(() => assertAllDeclared(nested, areas), /GET \/hidden/);
});

test("a reply that does not match its declared schema is a 500 when replies are checked", async () => {
  const logger = createLogger({ level: "silent", service: "test" });
  const lying = route({
    method: "get",
    path: "/lying",
    summary: "lying",
    responses: { 200: { description: "ok", body: z.object({ n: z.number() }) } },
    handler: () => ({ status: 200, body: { n: "1" } }),
  });
  const app = express();
  registerAreas(app, [{ tag: "t", present: presentStandard, routes: [lying] }], {
    authenticators: {} as Authenticators,
    json: express.json(),
    logger,
    checkResponses: true,
  });
  const res = await request(app).get("/lying");
  assert.equal(res.status, 500);
  assert.deepEqual(res.body, { error: "Internal server error", code: "INTERNAL_SERVER_ERROR" });
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

test("fix: /docs serves only what the reference page loads, under a Content-Security-Policy (issue 24 item 13)", async () => {
  for (const path of ["/docs", "/docs/assets/swagger-ui-bundle.js", "/docs/assets/init.js"]) {
    const res = await request(h.app).get(path);
    const csp = res.headers["content-security-policy"] ?? "";
    assert.match(csp, /default-src 'none'/, path);
    assert.match(csp, /script-src 'self'(;|$)/, `${path}: no inline or foreign script`);
    assert.match(csp, /frame-ancestors 'none'/, path);
    assert.equal(res.headers["x-content-type-options"], "nosniff", path);
  }
  // The package's sample pages and everything else in it are not served.
  for (const path of [
    "/docs/assets/index.html",
    "/docs/assets/oauth2-redirect.html",
    "/docs/assets/oauth2-redirect.js",
    "/docs/assets/swagger-initializer.js",
    "/docs/assets/package.json",
    "/docs/assets/",
  ]) {
    const res = await request(h.app).get(path);
    assert.equal(res.status, 404, `${path}: ${res.status}`);
  }
});

// Issue 25: the overview's APY had no unit; a scheme's second header name was undocumented.
test("OpenAPI gives the APY's unit and documents both API-key header names", async () => {
  const doc = (await request(h.app).get("/openapi.json")).body;
  const ok = doc.paths["/api/rewards/overview"].get.responses["200"].content["application/json"].schema;
  const text = JSON.stringify(ok.$ref ? doc.components.schemas[ok.$ref.split("/").at(-1)] : ok);
  assert.match(text, /"apy_7d":\{[^}]*"description":"Percent per year/, text);
  assert.match(doc.components.securitySchemes["api-key"].description, /`x-api-key` is accepted too/);
  assert.match(doc.components.securitySchemes["x-api-key"].description, /`api-key` is accepted too/);
});
