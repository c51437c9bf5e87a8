import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import request from "supertest";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";

// Regression: the per-owner caps were checked before the insert, so 40 concurrent creations against caps
// of 20 and 10 made 27–40. Each cap's count and insert now run under the owner's lock
// (control-plane/src/platform/owner-cap.ts): exactly the cap is created, however many ask at once.
let h: ControlPlaneHarness;
before(async () => {
  h = await createControlPlaneHarness({
    GATEWAY_KEYS_PER_USER: "5",
    WEBHOOK_ENDPOINTS_PER_OWNER: "3",
    WEBHOOK_ALLOW_HTTP: "1",
    WEBHOOK_ALLOWED_CIDRS: "127.0.0.1/32",
  });
});
after(() => h.close());

/** Sends `n` requests at once; the count of each status. */
async function burst(n: number, send: () => PromiseLike<{ status: number }>) {
  const results = await Promise.all(Array.from({ length: n }, () => send()));
  const counts: Record<number, number> = {};
  for (const r of results) counts[r.status] = (counts[r.status] ?? 0) + 1;
  return counts;
}

test("regression: 40 concurrent gateway key creations make exactly GATEWAY_KEYS_PER_USER keys", async () => {
  const email = `cap-${process.pid}-${Date.now()}@example.com`;
  const password = "Sup3rSecret";
  assert.equal((await request(h.app).post("/api/onboarding/signup").send({ email, password })).status, 201);
  const login = await request(h.app).post("/api/onboarding/login").send({ email, password });
  const bearer = { Authorization: `Bearer ${login.body.token}` };
  const counts = await burst(40, () => request(h.app).post("/api/api-key/create").set(bearer));
  assert.deepEqual(counts, { 201: 5, 409: 35 });
});

test("regression: 40 concurrent webhook endpoint creations make exactly WEBHOOK_ENDPOINTS_PER_OWNER endpoints", async () => {
  const org = await makeOrganisation(h.db);
  const counts = await burst(40, () =>
    request(h.app)
      .post("/api/webhooks/endpoints")
      .set("api-key", org.apiKey)
      .send({ url: "http://127.0.0.1:9/hook" }),
  );
  assert.deepEqual(counts, { 201: 3, 409: 37 });
});
