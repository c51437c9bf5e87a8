import assert from "node:assert/strict";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import express from "express";
import { z } from "zod";
import { AppError, presentStandard } from "../errors.ts";
import { createLogger } from "../log.ts";
import type { Authenticators } from "./auth.ts";
import { type Area, registerAreas, responsesOf, route } from "./route.ts";

const conflict = (declared: boolean) =>
  route({
    method: "post",
    path: declared ? "/declared" : "/undeclared",
    summary: "throws 409",
    body: z.object({ n: z.number() }),
    responses: {
      200: { description: "never" },
      ...(declared ? { 409: { description: "conflict", body: presentStandard.body } } : {}),
    },
    handler: () => {
      throw new AppError("CONFLICT", "taken");
    },
  });

const area: Area = { tag: "t", present: presentStandard, routes: [conflict(true), conflict(false)] };

let base: string;
let close: () => void;
before(async () => {
  const app = express();
  registerAreas(app, [area], {
    authenticators: {} as Authenticators,
    json: express.json({ type: () => true }),
    logger: createLogger({ level: "silent", service: "test" }),
    checkResponses: true,
  });
  const server = app.listen(0);
  await new Promise((r) => server.once("listening", r));
  base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  close = () => server.close();
});
after(() => close());

const post = (path: string, body: string) => fetch(`${base}${path}`, { method: "POST", body });

test("error responses follow from the declaration", () => {
  const statuses = (r: Parameters<typeof responsesOf>[0], a: Partial<Area> = {}) =>
    Object.keys(responsesOf(r, { present: presentStandard, ...a })).map(Number);
  const base = {
    method: "get",
    path: "/x",
    summary: "x",
    responses: { 200: { description: "ok" } },
  } as const;
  const handler = () => ({ status: 200 });
  assert.deepEqual(statuses(route({ ...base, handler })), [200]);
  assert.deepEqual(
    statuses(route({ ...base, query: z.object({}), security: "bearer", handler })),
    [200, 400, 401],
  );
  assert.deepEqual(statuses(route({ ...base, security: "api-key", handler })), [200, 401, 403, 429]);
  assert.deepEqual(
    statuses(route({ ...base, security: "stake-key", upstream: true, handler })),
    [200, 401, 403, 429, 502, 504],
  );
  assert.deepEqual(
    statuses(route({ ...base, indexed: true, handler }), { rateLimited: true }),
    [200, 429, 503],
  );
  const reworded = route({
    ...base,
    upstream: true,
    responses: { 200: base.responses[200], 502: { description: "L1" } },
    handler,
  });
  assert.equal(responsesOf(reworded, { present: presentStandard })[502]?.description, "L1");
});

test("under checkResponses a declared refusal passes; an undeclared one is a 500", async () => {
  const ok = await post("/declared", '{"n":1}');
  assert.equal(ok.status, 409);
  assert.equal(((await ok.json()) as { code: string }).code, "CONFLICT");
  const refused = await post("/undeclared", '{"n":1}');
  assert.equal(refused.status, 500);
  assert.equal(((await refused.json()) as { code: string }).code, "INTERNAL_SERVER_ERROR");
  // 400 follows from the body schema, so it needs no listing.
  assert.equal((await post("/undeclared", '{"n":"x"}')).status, 400);
  assert.equal((await post("/undeclared", "{")).status, 400);
});
