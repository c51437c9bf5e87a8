import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import request from "supertest";
import { createCore } from "../../control-plane/src/core.ts";
import { AppError } from "../../control-plane/src/errors.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";

// Regression: the per-owner caps were checked before the insert, so 40 concurrent creations against caps
// of 20 and 10 made 27–40. Each cap's count and insert now run under the owner's lock
// (control-plane/src/platform/owner-cap.ts): exactly the cap is created, however many ask at once.
let h: ControlPlaneHarness;
before(async () => {
  h = await createControlPlaneHarness({
    GATEWAY_KEYS_PER_USER: "5",
    API_KEYS_PER_ORGANISATION: "4",
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

// Through the service, not HTTP: Basic auth serialises one e-mail's password checks (a second one while the
// first runs is a 429), so concurrent creations for one organisation reach the cap only from several
// clients at once, or from the console's session; the service is where the cap must hold either way.
test("regression: 40 concurrent staking key creations for one organisation make exactly API_KEYS_PER_ORGANISATION keys", async () => {
  const org = await makeOrganisation(h.db);
  const { accounts } = createCore({
    config: h.config,
    db: h.db,
    redis: h.redis,
    logger: createLogger({ level: "silent", service: "control-plane" }),
  });
  const results = await Promise.allSettled(
    Array.from({ length: 40 }, (_, i) => accounts.createKey(org.id, `race-${i}`)),
  );
  const refused = results.filter(
    (r) =>
      r.status === "rejected" && r.reason instanceof AppError && r.reason.code === "API_KEY_LIMIT_REACHED",
  );
  // makeOrganisation issued one key: three more fit under the cap of four.
  assert.equal(results.filter((r) => r.status === "fulfilled").length, 3);
  assert.equal(refused.length, 37);
  assert.equal((await accounts.listKeys(org.id)).length, 4);
});
