import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import { Signature } from "ethers";
import request from "supertest";
import { api, type DelegationStack, decodeUnsigned, signUnsigned, startDelegationStack } from "./setup.ts";

let s: DelegationStack;
before(async () => {
  s = await startDelegationStack("testnet");
});
after(() => s.close());

const relayed = () => s.devnet.exchangeRequests().length;
async function unsignedFor(op: string, amount = 1) {
  const res = await api(s).prepare(op, { amount, delegatorAddress: s.inScope.address });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return decodeUnsigned(res.body.result.unsignedTransactionBase64);
}
async function refused(signed: unknown, status: number, code: string, message: RegExp) {
  const before = relayed();
  const res = await api(s).broadcast(signed);
  assert.equal(res.status, status, JSON.stringify(res.body));
  assert.equal(res.body.code, code);
  assert.match(res.body.error, message);
  assert.equal(relayed(), before, "nothing may reach /exchange");
}

test("amounts: the spec's bounds, 8 decimals and wei overflow are refused with the reason", async () => {
  const cases: [unknown, RegExp | string][] = [
    [0.09, /at least 0\.1/],
    [0.1, "0.1"],
    [1e-9, /8 decimal places/],
    [90071993, /largest integer a JSON number carries exactly/],
    [9007199254740991, /largest integer a JSON number carries exactly/],
    [9007199254740992, /at most 9007199254740991/],
    ["1.5", /Must be a JSON number/],
    [-1, /at least 0\.1/],
    [0, /at least 0\.1/],
    [undefined, /Required/],
  ];
  for (const [amount, expected] of cases) {
    const res = await api(s).prepare("delegate", { amount, delegatorAddress: s.inScope.address });
    if (typeof expected === "string") {
      assert.equal(res.status, 200);
      assert.equal(res.body.result.amount, expected);
      continue;
    }
    assert.equal(res.status, 400, `${amount}: ${JSON.stringify(res.body)}`);
    assert.equal(res.body.code, "VALIDATION_ERROR");
    assert.equal(res.body.details[0].field, "amount");
    assert.match(res.body.details[0].message, expected, String(amount));
  }
});

test("malformed or out-of-scope delegator addresses", async () => {
  for (const delegatorAddress of [
    "0x123",
    "hello",
    `0x${"g".repeat(40)}`,
    `${s.inScope.address}00`,
    42,
    undefined,
  ]) {
    const res = await api(s).prepare("withdraw", { amount: 1, delegatorAddress });
    assert.equal(res.status, 400, String(delegatorAddress));
    assert.equal(res.body.details[0].field, "delegatorAddress");
  }
  const bad = await api(s).balance("0x123");
  assert.equal(bad.status, 400);
  const other = await api(s).prepare("transfer", { amount: 1, delegatorAddress: s.outOfScope.address });
  assert.equal(other.status, 403);
  assert.equal(other.body.code, "ADDRESS_NOT_IN_SCOPE");
  assert.equal((await api(s).balance(s.outOfScope.address)).status, 403);
  const upper = await api(s).prepare("transfer", {
    amount: 1,
    delegatorAddress: s.inScope.wallet.address.toUpperCase().replace("0X", "0x"),
  });
  assert.equal(upper.status, 200, "scope compares hex case-insensitively");
});

test("the API key is required", async () => {
  const res = await request(s.h.app).post("/api/v1/staking/delegate").send({ amount: 1 });
  assert.equal(res.status, 401);
  assert.equal(res.body.code, "MISSING_API_KEY");
});

test("an action changed after signing is refused before relay", async () => {
  const unsigned = await unsignedFor("delegate");
  const tampered = { ...unsigned.action, wei: (unsigned.action.wei as number) * 100 };
  await refused(
    await signUnsigned(unsigned, s.inScope.wallet, tampered),
    403,
    "ADDRESS_NOT_IN_SCOPE",
    /changed after signing/,
  );
});

test("a signature by a key outside the organisation's scope is refused before relay", async () => {
  const unsigned = await unsignedFor("transfer");
  await refused(
    await signUnsigned(unsigned, s.outOfScope.wallet),
    403,
    "ADDRESS_NOT_IN_SCOPE",
    /not in the organisation/,
  );
});

test("a replayed nonce is refused locally; the first broadcast went through", async () => {
  const signed = await signUnsigned(await unsignedFor("transfer"), s.inScope.wallet);
  const first = await api(s).broadcast(signed);
  assert.equal(first.status, 200, JSON.stringify(first.body));
  await refused(signed, 409, "NONCE_ALREADY_USED", /already broadcast/);
});

test("wrong network, nonce mismatch, foreign validator and garbage are refused before relay", async () => {
  const unsigned = await unsignedFor("delegate");
  const mainnet = { ...unsigned, action: { ...unsigned.action, hyperliquidChain: "Mainnet" } };
  await refused(
    await signUnsigned(mainnet, s.inScope.wallet),
    400,
    "WRONG_NETWORK",
    /this deployment serves Testnet/,
  );

  const mismatch = JSON.parse(
    Buffer.from(await signUnsigned(unsigned, s.inScope.wallet), "base64").toString(),
  );
  mismatch.nonce += 1;
  await refused(
    Buffer.from(JSON.stringify(mismatch)).toString("base64"),
    400,
    "INVALID_SIGNED_TRANSACTION",
    /nonce must equal/,
  );

  const foreign = { ...unsigned, action: { ...unsigned.action, validator: s.devnet.validators[1] } };
  await refused(
    await signUnsigned(foreign, s.inScope.wallet),
    400,
    "INVALID_SIGNED_TRANSACTION",
    /operator's validator/,
  );

  await refused("%%%not base64%%%", 400, "INVALID_SIGNED_TRANSACTION", /base64/);
  await refused(
    Buffer.from('{"action":{"type":"order"}}').toString("base64"),
    400,
    "INVALID_SIGNED_TRANSACTION",
    /Invalid/,
  );
  await refused(12, 400, "VALIDATION_ERROR", /signedTransaction/);
});

test("unpadded r/s and v as 0/1 are accepted, as Hyperliquid accepts them", async () => {
  for (let i = 0; i < 40; i++) {
    const unsigned = await unsignedFor("transfer", 0.1);
    const sig = Signature.from(
      await s.inScope.wallet.signTypedData(unsigned.domain, unsigned.types, unsigned.action),
    );
    if (!sig.r.startsWith("0x0") && !sig.s.startsWith("0x0") && i < 39) continue;
    const strip = (h: string) => `0x${h.slice(2).replace(/^0+/, "")}`;
    const signed = {
      action: unsigned.action,
      nonce: unsigned.nonce,
      signature: { r: strip(sig.r), s: strip(sig.s), v: sig.v - 27 },
    };
    const res = await api(s).broadcast(Buffer.from(JSON.stringify(signed)).toString("base64"));
    assert.equal(res.status, 200, JSON.stringify(res.body));
    return;
  }
});

test("when the history entry is not visible yet, the hash is null and the status says pending", async () => {
  s.devnet.setHistoryLag(60_000);
  try {
    const signed = await signUnsigned(await unsignedFor("transfer"), s.inScope.wallet);
    const res = await api(s).broadcast(signed);
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.result.transactionHash, null);
    assert.match(res.body.result.status, /^pending/);
  } finally {
    s.devnet.setHistoryLag(0);
  }
});

test("two identical broadcasts at once each get their own history hash", async () => {
  const signed = await Promise.all(
    [unsignedFor("transfer", 2), unsignedFor("transfer", 2)].map(async (u) =>
      signUnsigned(await u, s.inScope.wallet),
    ),
  );
  const [a, b] = await Promise.all(signed.map((tx) => api(s).broadcast(tx)));
  assert.equal(a?.status, 200);
  assert.equal(b?.status, 200);
  const hashes = [a?.body.result.transactionHash, b?.body.result.transactionHash];
  assert.notEqual(hashes[0], hashes[1]);
  const res = await fetch(`${s.devnet.url}/info`, {
    method: "POST",
    body: JSON.stringify({ type: "delegatorHistory", user: s.inScope.address }),
  });
  const known = ((await res.json()) as { hash: string }[]).map((e) => e.hash);
  for (const h of hashes) assert.ok(known.includes(h), `${h} is a real history hash`);
});

test("nonces are millisecond times, strictly increasing per delegator under concurrency", async () => {
  const results = await Promise.all(
    Array.from({ length: 20 }, () =>
      api(s).prepare("transfer", { amount: 1, delegatorAddress: s.inScope.address }),
    ),
  );
  const nonces = results.map((r) => decodeUnsigned(r.body.result.unsignedTransactionBase64).nonce);
  assert.equal(new Set(nonces).size, 20);
  for (const n of nonces) assert.ok(Math.abs(n - Date.now()) < 60_000);
});

test("a silent node is a 504 in the area's error body, never a hang", async () => {
  s.devnet.stall(true);
  try {
    const res = await api(s).balance(s.inScope.address);
    assert.equal(res.status, 504);
    assert.deepEqual(res.body, { error: "Hyperliquid API did not answer in time", code: "UPSTREAM_TIMEOUT" });
  } finally {
    s.devnet.stall(false);
  }
});
