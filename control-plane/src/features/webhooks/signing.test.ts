import assert from "node:assert/strict";
import { test } from "node:test";
import { Webhook } from "standardwebhooks";
import { newSecret, signedHeaders } from "./signing.ts";

// The reference library verifies what we sign: one secret, and two during a rotation (either verifies).
test("Standard Webhooks: the standardwebhooks library verifies our signatures", () => {
  const [current, previous, other] = [newSecret(), newSecret(), newSecret()];
  const body = JSON.stringify({
    type: "webhook.test",
    timestamp: "2026-11-26T00:00:00.000Z",
    data: { a: 1 },
  });
  const now = Math.floor(Date.now() / 1000);
  const one = signedHeaders([current], "msg_abc", now, body);
  assert.deepEqual(new Webhook(current).verify(body, one), JSON.parse(body));
  const both = signedHeaders([current, previous], "msg_abc", now, body);
  assert.equal(both["webhook-signature"].split(" ").length, 2);
  new Webhook(current).verify(body, both);
  new Webhook(previous).verify(body, both);
  assert.throws(() => new Webhook(other).verify(body, both), /No matching signature/);
  assert.throws(() => new Webhook(current).verify(`${body} `, one), /No matching signature/);
  assert.match(current, /^whsec_[A-Za-z0-9+/]{43}=$/);
});
