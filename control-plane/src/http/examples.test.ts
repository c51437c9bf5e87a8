import assert from "node:assert/strict";
import { test } from "node:test";
import { issueApiKey } from "@stake/db/api-key";
import { type Examples, keepExample, redact } from "./examples.ts";

test("redact replaces every kind of secret, wherever it sits, and keeps ids and addresses", () => {
  const staking = issueApiKey("staking").key;
  const gateway = issueApiKey("gateway").key;
  const jwt = "eyJhbGciOiJIUzI1NiJ9.eyJzdWIiOiJnd3VfMSJ9.c2lnbmF0dXJl";
  const recorded = {
    request: { body: { email: "a@example.com", password: "Secret-pass1", newPassword: "Other-pass2" } },
    response: {
      apiKey: staking,
      key: gateway,
      token: jwt,
      secret: "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
      nested: [{ privateKey: "0xabc" }, `Bearer ${jwt}`],
      keyId: "key_P5bYS8oR149r9e1ih7i3QZ",
      start: staking.slice(0, 10),
      address: "0x1111111111111111111111111111111111111111",
    },
  };
  assert.deepEqual(redact(recorded), {
    request: {
      body: { email: "a@example.com", password: "Redacted-passw0rd", newPassword: "Redacted-passw0rd" },
    },
    response: {
      apiKey: "stk_REDACTED",
      key: "gwk_REDACTED",
      token: "REDACTED.JWT.TOKEN",
      secret: "whsec_REDACTED",
      nested: [{ privateKey: "Redacted-passw0rd" }, "Bearer REDACTED.JWT.TOKEN"],
      keyId: "key_P5bYS8oR149r9e1ih7i3QZ",
      start: staking.slice(0, 10),
      address: "0x1111111111111111111111111111111111111111",
    },
  });
  // A refused request's password does not pass the password rules, so it never reads as acceptable.
  assert.deepEqual(redact({ password: "short" }, true), { password: "<redacted>" });
  // What is redacted stays so, whichever placeholder: the check on the committed examples relies on it.
  assert.deepEqual(redact(redact(recorded)), redact(recorded));
  assert.deepEqual(redact(redact({ password: "short" }, true)), { password: "<redacted>" });
});

test("keepExample keeps the richest example that stays readable, the first on a tie", () => {
  const kept: Examples = {};
  const example = (n: number) => ({
    at: "2026-01-01T00:00:00Z",
    request: {},
    response: { items: "x".repeat(n) },
  });
  keepExample(kept, "get /a", "200", example(10));
  keepExample(kept, "get /a", "200", example(5));
  assert.equal((kept["get /a"]!["200"]!.response as { items: string }).items.length, 10);
  keepExample(kept, "get /a", "200", example(1500));
  assert.equal((kept["get /a"]!["200"]!.response as { items: string }).items.length, 1500);
  // Past the readable size, any readable example wins, and of two unreadable ones the smaller.
  keepExample(kept, "get /a", "200", example(5000));
  assert.equal((kept["get /a"]!["200"]!.response as { items: string }).items.length, 1500);
  keepExample(kept, "get /b", "200", example(9000));
  keepExample(kept, "get /b", "200", example(6000));
  assert.equal((kept["get /b"]!["200"]!.response as { items: string }).items.length, 6000);
  const first = example(10);
  keepExample(kept, "get /c", "400", first);
  keepExample(kept, "get /c", "400", example(10));
  assert.equal(kept["get /c"]!["400"], first);
});
