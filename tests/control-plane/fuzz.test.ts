import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import fc from "fast-check";
import request from "supertest";
import { basic, makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";

/**
 * Property: whatever body, header or keyId a client sends to an account endpoint, the answer is a 4xx
 * (or success) in the area's JSON error format, never a 500 and never a stack trace.
 */
let h: ControlPlaneHarness;
let org: Awaited<ReturnType<typeof makeOrganisation>>;
before(async () => {
  h = await createControlPlaneHarness({
    SIGNUP_LIMIT_PER_IP: "100000",
    AUTH_FAILURE_LIMIT_PER_EMAIL: "100000",
  });
  org = await makeOrganisation(h.db);
});
after(() => h.close());

const RUNS = 40;
const printable = fc.string({
  unit: fc.constantFrom(..." !\"#$%&'()*+,-./0123456789:;<=>?@ABCZabcz[\\]^_`{|}~"),
  maxLength: 40,
});
const jsonValue = fc.oneof(
  fc.jsonValue({ maxDepth: 3 }),
  fc.record(
    {
      email: fc.oneof(fc.emailAddress(), fc.string(), fc.integer(), fc.constant(null)),
      password: fc.oneof(fc.string(), fc.integer(), fc.constant("Sup3rSecret")),
      org: fc.oneof(fc.string(), fc.array(fc.string())),
      orgName: fc.oneof(fc.string(), fc.boolean()),
      scope: fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.dictionary(fc.string(), fc.jsonValue({ maxDepth: 2 })),
      ),
      allowedAddresses: fc.oneof(
        fc.jsonValue({ maxDepth: 3 }),
        fc.dictionary(fc.constantFrom("ethereum", "sui", "x"), fc.array(fc.string())),
      ),
      label: fc.oneof(fc.string({ maxLength: 100 }), fc.integer(), fc.constant(null)),
    },
    { requiredKeys: [] },
  ),
);
const rawBody = fc.oneof(
  printable,
  jsonValue.map((v) => JSON.stringify(v)),
);

function assertClean(res: request.Response, what: string) {
  assert.ok(res.status < 500, `${what} → ${res.status} ${res.text}`);
  assert.ok(
    !/\bat .+\.(ts|js):\d+/.test(res.text) && !/node_modules|postgres|drizzle|SELECT|INSERT/i.test(res.text),
    `${what} leaked: ${res.text}`,
  );
  if (res.status >= 400) assert.match(String(res.headers["content-type"]), /application\/json/);
}

test("POST /user/signup and /api/public/register with arbitrary bodies", async () => {
  await fc.assert(
    fc.asyncProperty(fc.constantFrom("/user/signup", "/api/public/register"), rawBody, async (path, body) => {
      const res = await request(h.app).post(path).set("content-type", "application/json").send(body);
      assertClean(res, `${path} ${body}`);
    }),
    { numRuns: RUNS * 2 },
  );
});

test("key endpoints with arbitrary Authorization headers, bodies and keyIds", async () => {
  const auth = fc.oneof(
    printable,
    printable.map((s) => `Basic ${Buffer.from(s).toString("base64")}`),
    fc.constant(basic(org.email, org.password)),
  );
  const keyId = fc.oneof(
    printable,
    fc.constant("key_"),
    fc.string({ maxLength: 30 }).map((s) => `key_${s}`),
  );
  await fc.assert(
    fc.asyncProperty(
      auth,
      rawBody,
      keyId,
      fc.constantFrom("post", "get", "delete"),
      async (authorization, body, id, method) => {
        const path = method === "delete" ? `/user/api-keys/${encodeURIComponent(id)}` : "/user/api-keys";
        const res = await request(h.app)
          [method](path)
          .set("authorization", authorization)
          .set("content-type", "application/json")
          .send(body);
        assertClean(res, `${method} ${path} [${authorization}] ${body}`);
      },
    ),
    { numRuns: RUNS * 2 },
  );
});

test("POST /api/public/generate-api-key with arbitrary x-api-key headers", async () => {
  await fc.assert(
    fc.asyncProperty(printable, rawBody, async (key, body) => {
      const res = await request(h.app).post("/api/public/generate-api-key").set("x-api-key", key).send(body);
      assertClean(res, `x-api-key ${key}`);
    }),
    { numRuns: RUNS },
  );
});
