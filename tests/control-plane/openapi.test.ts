import assert from "node:assert/strict";
import { readFile } from "node:fs/promises";
import { after, before, mock, test } from "node:test";
import express from "express";
import request from "supertest";
import { z } from "zod";
import { createAreas } from "../../control-plane/src/app.ts";
import { presentStandard } from "../../control-plane/src/errors.ts";
import type { Authenticators } from "../../control-plane/src/http/auth.ts";
import { operationKey, redact } from "../../control-plane/src/http/examples.ts";
import { operationsArea } from "../../control-plane/src/http/operations.ts";
import { assertAllDeclared, registerAreas, responsesOf, route } from "../../control-plane/src/http/route.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import { recordedExamples } from "../../control-plane/src/openapi.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";

let h: Awaited<ReturnType<typeof createControlPlaneHarness>>;
before(async () => {
  h = await createControlPlaneHarness();
});
after(() => h.close());

/** The areas the harness's app serves, as declared (their routes and error bodies). */
async function declaredAreas() {
  const { areas } = await createAreas({
    config: h.config,
    logger: createLogger({ level: "silent", service: "test" }),
    db: h.db,
    redis: h.redis,
  });
  return areas;
}

test("/openapi.json documents every declared route with its request and response schemas", async () => {
  const res = await request(h.app).get("/openapi.json");
  assert.equal(res.status, 200);
  assert.match(res.headers["content-type"] ?? "", /application\/json/);
  const doc = res.body;
  assert.equal(doc.openapi, "3.1.0");
  const areas = await declaredAreas();
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

test("fix: /docs serves only what the reference page loads, under a Content-Security-Policy", async () => {
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

// The overview's APY had no unit; a scheme's second header name was undocumented.
test("OpenAPI gives the APY's unit and documents both API-key header names", async () => {
  const doc = (await request(h.app).get("/openapi.json")).body;
  const ok = doc.paths["/api/rewards/overview"].get.responses["200"].content["application/json"].schema;
  const text = JSON.stringify(ok.$ref ? doc.components.schemas[ok.$ref.split("/").at(-1)] : ok);
  assert.match(text, /"apy_7d":\{[^}]*"description":"Percent per year/, text);
  assert.match(doc.components.securitySchemes["api-key"].description, /`x-api-key` is accepted too/);
  assert.match(doc.components.securitySchemes["x-api-key"].description, /`api-key` is accepted too/);
});

// Every refusal a route can give is declared, and a wrong method is 405 with Allow.
test("every authenticated route declares 401, every limited route 429", async () => {
  const doc = (await request(h.app).get("/openapi.json")).body;
  const areas = await declaredAreas();
  // Listed here, not taken from the declarations: the schemes whose check counts calls per caller
  // (password attempts, requests per staking key) and the routes behind the sign-up and log-in limits.
  const limitedSchemes = new Set(["basic", "api-key", "x-api-key", "stake-key"]);
  const limitedPaths = new Set([
    "/user/signup",
    "/api/public/register",
    "/api/onboarding/signup",
    "/api/onboarding/login",
  ]);
  let authenticated = 0;
  let limited = 0;
  for (const area of areas)
    for (const r of area.routes) {
      const op = doc.paths[r.path][r.method];
      if (r.security && r.security !== "metrics") {
        authenticated++;
        assert.ok(op.responses["401"], `${r.method} ${r.path} declares 401`);
        assert.deepEqual(op.security, [{ [r.security]: [] }], `${r.method} ${r.path} security`);
      }
      if ((r.security && limitedSchemes.has(r.security)) || limitedPaths.has(r.path)) {
        limited++;
        assert.ok(op.responses["429"], `${r.method} ${r.path} declares 429`);
      }
    }
  assert.ok(authenticated >= 30 && limited >= 30, `${authenticated} authenticated, ${limited} limited`);
});

test("a known path asked with a wrong method is 405 with Allow, in its area's error body", async () => {
  const cases = [
    { method: "delete", path: "/api/v1/stake", allow: "POST", body: { code: "METHOD_NOT_ALLOWED" } },
    {
      method: "post",
      path: "/api/rewards/overview",
      allow: "GET, HEAD",
      body: { code: "METHOD_NOT_ALLOWED" },
    },
    { method: "get", path: "/api/rewards", allow: "POST", body: { code: "METHOD_NOT_ALLOWED" } },
    { method: "put", path: "/user/api-keys", allow: "POST, GET, HEAD", body: { code: "METHOD_NOT_ALLOWED" } },
    {
      method: "get",
      path: "/api/public/register",
      allow: "POST",
      body: { success: false, code: "METHOD_NOT_ALLOWED" },
    },
    { method: "delete", path: "/api/balance", allow: "GET, HEAD", body: {} },
    { method: "get", path: "/v1/stake", allow: "POST", body: { code: "METHOD_NOT_ALLOWED" } },
  ] as const;
  for (const c of cases) {
    const res = await request(h.app)[c.method](c.path);
    assert.equal(res.status, 405, `${c.method} ${c.path}: ${res.status} ${JSON.stringify(res.body)}`);
    assert.equal(res.headers.allow, `${c.allow}, OPTIONS`, `${c.method} ${c.path}`);
    assert.match(JSON.stringify(res.body), /not allowed/, `${c.path} says why`);
    for (const [k, v] of Object.entries(c.body)) assert.equal(res.body[k], v, `${c.path} ${k}`);
  }
  // The gateway account API's body is {message} only.
  assert.deepEqual(Object.keys((await request(h.app).delete("/api/balance")).body), ["message"]);
  const options = await request(h.app).options("/api/v1/stake");
  assert.equal(options.status, 204);
  assert.equal(options.headers.allow, "POST, OPTIONS");
  // An unknown path stays 404.
  assert.equal((await request(h.app).put("/api/nowhere")).status, 404);
});

// Examples on every operation, taken from the tests (docs/testing.md, "OpenAPI examples").
test("every operation has a recorded success example, and every example fits its operation", async () => {
  const examples = recordedExamples();
  // Declarations only: the operations area's dependencies are never called here.
  const operations = operationsArea({
    readiness: async () => ({}) as never,
    metrics: async () => ({}) as never,
    openapi: () => "",
  });
  const problems: string[] = [];
  const known = new Set<string>();
  const check = (where: string, schema: z.ZodType | undefined, value: unknown) => {
    const issue = schema?.safeParse(value).error?.issues[0];
    if (issue)
      problems.push(`${where}: ${issue.path.join(".")} ${issue.message} in ${JSON.stringify(value)}`);
  };
  for (const area of [...(await declaredAreas()), operations])
    for (const r of area.routes) {
      const key = operationKey(r);
      known.add(key);
      const declared = responsesOf(r, area);
      const recorded = examples[key] ?? {};
      for (const [status, spec] of Object.entries(declared))
        if (status.startsWith("2") && spec.body && !recorded[status])
          problems.push(`${key} ${status}: no example (refresh with npm run openapi:examples)`);
      for (const [status, e] of Object.entries(recorded)) {
        const spec = declared[Number(status)];
        if (!spec) problems.push(`${key} ${status}: not a declared status`);
        else if (spec.body) check(`${key} ${status} reply`, spec.body, e.response);
        else if (e.response !== undefined) problems.push(`${key} ${status}: declared without a JSON body`);
        if (!status.startsWith("2")) continue;
        // The request that got a success was a valid one when it was sent.
        mock.timers.enable({ apis: ["Date"], now: Date.parse(e.at) });
        try {
          check(`${key} ${status} body`, r.body, e.request.body);
          check(`${key} ${status} query`, r.query, e.request.query ?? {});
          check(`${key} ${status} params`, r.params, e.request.params ?? {});
        } finally {
          mock.timers.reset();
        }
      }
    }
  for (const key of Object.keys(examples)) if (!known.has(key)) problems.push(`${key}: no such operation`);
  assert.deepEqual(problems, []);
  assert.deepEqual(redact(examples), examples, "a secret in the recorded examples");

  // The document carries them where a reader looks: beside the request body, each reply and each parameter.
  const doc = (await request(h.app).get("/openapi.json")).body;
  const create = doc.paths["/user/api-keys"].post;
  const created = create.responses["201"].content["application/json"].examples["201"];
  assert.equal(created.value.apiKey, "stk_REDACTED", JSON.stringify(created));
  assert.ok(create.requestBody.content["application/json"].examples["201"].value, "request example");
  const endpoint = doc.paths["/api/webhooks/endpoints/{id}"].get;
  assert.match(endpoint.parameters[0].example, /^whep_/, JSON.stringify(endpoint.parameters));
});

test("the event catalogue's validator statuses are exactly the spec's lifecycle statuses", async () => {
  // docs/spec.md "Validator lifecycle status": "Values: CREATED (…), DEPOSITED (…), …, UNKNOWN (…). A sample…"
  const spec = await readFile("docs/spec.md", "utf8");
  const values = /### Validator lifecycle status\nValues: (.*?)\. A sample/.exec(spec)?.[1];
  assert.ok(values, "docs/spec.md lists the lifecycle statuses");
  const statuses = values
    .replace(/\([^)]*\)/g, "")
    .split(",")
    .map((s) => s.trim());
  const doc = (await request(h.app).get("/openapi.json")).body;
  const body = doc.webhooks["validator.status_changed"].post.requestBody.content["application/json"].schema;
  const data = body.properties.data;
  for (const field of ["status", "previousStatus"]) {
    const schema = data.properties[field];
    const listed = schema.enum ?? schema.anyOf?.find((s: { enum?: string[] }) => s.enum)?.enum;
    assert.deepEqual(listed, statuses, `${field}: ${JSON.stringify(schema)}`);
  }
});
