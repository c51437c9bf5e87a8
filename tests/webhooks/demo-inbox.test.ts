import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import request from "supertest";
import { INBOX_ALLOWANCE, startWebhookInbox } from "../../devnet/webhook-inbox/server.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { eventually } from "../helpers/eventually.ts";
import { startJobs } from "../helpers/jobs.ts";

// The demo's webhook inbox (devnet/webhook-inbox/) under the allowance `npm start` gives its processes, and
// nothing else changed: the call the banner prints creates an endpoint there, and the worker delivers to it.
let h: ControlPlaneHarness;
let jobs: Awaited<ReturnType<typeof startJobs>> | undefined;
let inbox: Awaited<ReturnType<typeof startWebhookInbox>>;
before(async () => {
  [h, inbox] = await Promise.all([
    createControlPlaneHarness({ ...INBOX_ALLOWANCE, WEBHOOK_POLL_INTERVAL_MS: "50" }),
    startWebhookInbox(),
  ]);
  jobs = await startJobs(h, ["webhook-delivery"]);
});
after(async () => {
  await jobs?.close();
  await inbox.close();
  await h.close();
});

interface Listed {
  webhookId: string;
  body: { type: string; data: { endpointId: string } };
  signatureValid: boolean | null;
}
const listed = async (secret?: string) => {
  const res = await fetch(`${inbox.url}/hook`, { headers: secret ? { "webhook-secret": secret } : {} });
  assert.equal(res.status, 200);
  return ((await res.json()) as { received: Listed[] }).received;
};

test("the demo's inbox receives a signed delivery from the worker, answers 2xx and lists it, its signature checked with the endpoint's secret", async () => {
  const org = await makeOrganisation(h.db);
  const created = await request(h.app)
    .post("/api/webhooks/endpoints")
    .set("api-key", org.apiKey)
    .send({ url: `${inbox.url}/hook` });
  assert.equal(created.status, 201, JSON.stringify(created.body));
  const { id, secret } = created.body as { id: string; secret: string };
  const sent = await request(h.app).post(`/api/webhooks/endpoints/${id}/test`).set("api-key", org.apiKey);
  assert.equal(sent.status, 202, JSON.stringify(sent.body));

  const [got] = await eventually(async () => (await listed()).length > 0 && listed(), {
    what: "the inbox to list the delivery",
  });
  assert.equal(got?.webhookId, sent.body.eventId);
  assert.equal(got?.body.type, "webhook.test");
  assert.equal(got?.body.data.endpointId, id);
  assert.equal(got?.signatureValid, null, "no secret given, nothing checked");
  assert.equal((await listed(secret))[0]?.signatureValid, true);
  const other = `whsec_${Buffer.alloc(32, 7).toString("base64")}`;
  assert.equal((await listed(other))[0]?.signatureValid, false);

  const delivered = await eventually(
    async () => {
      const res = await request(h.app)
        .get(`/api/webhooks/endpoints/${id}/deliveries`)
        .set("api-key", org.apiKey);
      const [d] = res.body.deliveries as { status: string; responseStatus: number | null }[];
      return d?.status === "delivered" && d;
    },
    { what: "the delivery recorded as delivered" },
  );
  assert.equal(delivered.responseStatus, 204);
});
