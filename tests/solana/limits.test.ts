import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import request from "supertest";
import { type SolanaDevnet, startSolanaDevnet } from "../../devnet/solana/server.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { testWallet } from "./setup.ts";

// A stake-account request can cost many Solana RPC calls: they follow the requested window, and each key
// has a request budget per minute.
const alice = testWallet(0x41);
let dev: SolanaDevnet;
let h: ControlPlaneHarness;
let key: string;
before(async () => {
  dev = await startSolanaDevnet({ fund: [{ pubkey: alice.pubkey, lamports: 10_000_000_000n }] });
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "solana-stake",
    SOLANA_RPC_URL: dev.url,
    SOLANA_MEV_API_URL: dev.mevUrl,
    SOLANA_REQUESTS_PER_KEY_PER_MINUTE: "5",
  });
  key = (await makeOrganisation(h.db)).apiKey;
  const res = await request(h.app).post("/api/v1/stake").set("x-api-key", key).send({
    validatorPubKey: dev.chain.validators[0]?.vote,
    walletPubKey: alice.pubkey,
    amount: 1_000_000_000,
  });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  dev.chain.submit(Buffer.from(alice.sign(res.body.data.unsignedTransactionBase64), "base64"));
});
after(async () => {
  await h.close();
  await dev.close();
});

test("history fetches only the transactions inside the requested window", async () => {
  const before = dev.calls.get("getTransaction") ?? 0;
  const res = await request(h.app)
    .get("/api/v1/history/events")
    .query({ wallet_address: alice.pubkey, start_time: 1, end_time: 1_000 })
    .set("x-api-key", key);
  assert.equal(res.status, 200, JSON.stringify(res.body));
  assert.deepEqual(res.body.data.history, []);
  assert.equal(
    (dev.calls.get("getTransaction") ?? 0) - before,
    0,
    "the account's transactions are all later",
  );
});

test("each key has a request budget per minute; other keys are not affected", async () => {
  const balance = (k: string) =>
    request(h.app).post("/api/v1/balance").set("x-api-key", k).send({ walletPubKey: alice.pubkey });
  const statuses: number[] = [];
  for (let i = 0; i < 4; i++) statuses.push((await balance(key)).status);
  assert.deepEqual(statuses, [200, 200, 200, 429], "stake + history + 3 balances = 5, the 6th waits");
  const limited = await balance(key);
  assert.equal(limited.body.code, "RATE_LIMITED");
  assert.ok(Number(limited.headers["retry-after"]) >= 1);
  assert.equal((await balance((await makeOrganisation(h.db)).apiKey)).status, 200);
});
