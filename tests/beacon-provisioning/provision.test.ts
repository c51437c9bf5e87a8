import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { validators } from "@stake/db/schema/provisioning";
import { eq } from "drizzle-orm";
import supertest from "supertest";
import { decodeFunctionData, parseAbi } from "viem";
import { freePort } from "../../scripts/lib/ports.ts";
import { makeOrganisation, type TestOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { HOODI, reverifyDepositData, startWorker, waitForProvision } from "./fixtures.ts";

const ABI = parseAbi([
  "function deposit(bytes pubkey, bytes withdrawal_credentials, bytes signature, bytes32 deposit_data_root)",
  "function deposit(bytes[] pubkeys, bytes[] withdrawal_credentials, bytes[] signatures, bytes32[] deposit_data_roots, uint256[] collateral)",
]);
const WD = "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAed"; // EIP-55 test vector
const attrs = (over: Record<string, unknown> = {}) => ({
  withdrawalAddress: WD,
  validatorsCount: 2,
  batch: false,
  ...over,
});

let h: ControlPlaneHarness;
let worker: Awaited<ReturnType<typeof startWorker>>;
let a: TestOrganisation;
let b: TestOrganisation;

before(async () => {
  // Provisioning reads nothing of the chain: no beacon node, its URL a port nothing listens on, so a read
  // would fail the test.
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "beacon-provisioning",
    ETH_BEACON_URL: `http://127.0.0.1:${await freePort()}`,
    ETH_NETWORK: "hoodi",
  });
  worker = await startWorker(h, 2);
  a = await makeOrganisation(h.db);
  b = await makeOrganisation(h.db);
});
after(async () => {
  await worker.close();
  await h.close();
});

const post = (key: string, body: object, idem?: string) => {
  const r = supertest(h.app).post("/api/provision").set("api-key", key);
  return (idem ? r.set("Idempotency-Key", idem) : r).send(body);
};

async function provisionAndWait(attributes: Record<string, unknown>, key = a.apiKey) {
  const res = await post(key, { attributes });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return waitForProvision(h.app, key, res.body.result.provisionId);
}

describe("POST /api/provision validation", () => {
  const bad: [string, Record<string, unknown>][] = [
    ["validatorsCount 0", attrs({ validatorsCount: 0 })],
    ["validatorsCount 101", attrs({ validatorsCount: 101 })],
    ["validatorsCount 1.5", attrs({ validatorsCount: 1.5 })],
    ["malformed withdrawal address", attrs({ withdrawalAddress: "0x123" })],
    ["bad checksum", attrs({ withdrawalAddress: "0x5aAeb6053F3E94C9b9A09f33669435E7Ef1BeAeD" })],
    ["malformed fee recipient", attrs({ feeRecipient: "5aaeb6053f3e94c9b9a09f33669435e7ef1beaed" })],
    ["malformed controller", attrs({ controllerAddress: "0xzz" })],
    ["amount 31 (0x02)", attrs({ compounding: true, amountPerValidator: 31 })],
    ["amount 2049 (0x02)", attrs({ compounding: true, amountPerValidator: 2049 })],
    ["amount 32.5 with 0x01", attrs({ amountPerValidator: 32.5 })],
    ["amount 33 with 0x01", attrs({ amountPerValidator: 33 })],
    ["sub-Gwei amount", attrs({ compounding: true, amountPerValidator: "32.0000000001" })],
    ["batch missing", { withdrawalAddress: WD, validatorsCount: 1 }],
  ];
  for (const [name, attributes] of bad) {
    test(`${name} → 400`, async () => {
      const res = await post(a.apiKey, { attributes });
      assert.equal(res.status, 400, JSON.stringify(res.body));
      assert.equal(res.body.code, "VALIDATION_ERROR");
      assert.ok(res.body.details[0].field.startsWith("attributes"));
    });
  }
  test("no API key → 401", async () => {
    const res = await supertest(h.app).post("/api/provision").send({ attributes: attrs() });
    assert.equal(res.status, 401);
  });
});

describe("provisioning end to end", () => {
  test("per-validator 0x01 deposits: each depositInput decodes to the stored, independently verified deposit", async () => {
    const res = await post(a.apiKey, {
      attributes: attrs({ validatorsCount: 3, feeRecipient: WD.toLowerCase() }),
    });
    assert.equal(res.status, 200);
    const r = res.body.result;
    assert.equal(r.status, "CREATED");
    assert.equal(r.validatorsCount, 3);
    assert.equal(r.withdrawalAddress, WD);
    assert.equal(r.feeRecipient, WD);
    assert.equal(r.controllerAddress, null);
    const list = await waitForProvision(h.app, a.apiKey, r.provisionId);
    assert.equal(list.body.provisionStatus, "CREATED");
    assert.equal(list.body.results.length, 3);
    assert.equal(list.body.depositInput, null);
    assert.equal(list.body.withdrawal_credentials, `0x010000000000000000000000${WD.slice(2).toLowerCase()}`);
    assert.deepEqual(
      [list.body.page, list.body.per_page, list.body.pages, list.body.total],
      [null, null, null, 3],
    );

    const details = await supertest(h.app)
      .get("/api/deposit-details")
      .query({ provisionId: r.provisionId })
      .set("api-key", a.apiKey);
    assert.equal(details.status, 200);
    assert.equal(details.body.feeRecipient, WD);
    for (const [i, item] of list.body.results.entries()) {
      const d = details.body.results[i];
      assert.equal(item.status, "CREATED");
      assert.equal(item.amount, 32_000_000_000);
      assert.equal(item.to, HOODI.depositContract);
      assert.equal(item.value, "32000000000000000000");
      assert.equal(d.network_name, "hoodi");
      assert.equal(d.fork_version, "10000910");
      reverifyDepositData(d);
      const { args } = decodeFunctionData({ abi: ABI, data: item.depositInput });
      assert.deepEqual(args, [
        `0x${d.pubkey}`,
        `0x${d.withdrawal_credentials}`,
        `0x${d.signature}`,
        `0x${d.deposit_data_root}`,
      ]);
    }
    const paged = await supertest(h.app)
      .get("/api/validators")
      .query({ provisionId: r.provisionId, page: 2, per_page: 2 })
      .set("api-key", a.apiKey);
    assert.deepEqual(
      [paged.body.page, paged.body.per_page, paged.body.pages, paged.body.total, paged.body.results.length],
      [2, 2, 2, 3, 1],
    );
    assert.equal(paged.body.results[0].validatorAddress, list.body.results[2].validatorAddress);
  });

  test("batch 0x02 at 64 ETH: one call that decodes to exactly the per-validator deposits", async () => {
    const list = await provisionAndWait(
      attrs({ validatorsCount: 4, batch: true, compounding: true, amountPerValidator: "64" }),
    );
    assert.equal(list.body.provisionStatus, "CREATED");
    assert.equal(list.body.to, HOODI.batchDepositor);
    assert.equal(list.body.value, (256n * 10n ** 18n).toString());
    assert.ok(list.body.results.every((v: { depositInput: unknown }) => v.depositInput === null));
    const details = await supertest(h.app)
      .get("/api/deposit-details")
      .query({ provisionId: list.body.provisionId })
      .set("api-key", a.apiKey);
    const ds = details.body.results;
    for (const d of ds) reverifyDepositData(d);
    const { functionName, args } = decodeFunctionData({ abi: ABI, data: list.body.depositInput });
    assert.equal(functionName, "deposit");
    assert.deepEqual(args, [
      ds.map((d: { pubkey: string }) => `0x${d.pubkey}`),
      ds.map((d: { withdrawal_credentials: string }) => `0x${d.withdrawal_credentials}`),
      ds.map((d: { signature: string }) => `0x${d.signature}`),
      ds.map((d: { deposit_data_root: string }) => `0x${d.deposit_data_root}`),
      ds.map(() => 64n * 10n ** 18n),
    ]);
    assert.ok(
      ds.every(
        (d: { withdrawal_credentials: string; amount: number }) =>
          d.withdrawal_credentials.startsWith("02") && d.amount === 64e9,
      ),
    );
  });

  test("concurrent provisions never share a key index; keys are stored encrypted", async () => {
    const ids = await Promise.all(
      [1, 2, 3].map(
        async () =>
          (await post(a.apiKey, { attributes: attrs({ validatorsCount: 5 }) })).body.result.provisionId,
      ),
    );
    for (const id of ids)
      assert.equal((await waitForProvision(h.app, a.apiKey, id)).body.provisionStatus, "CREATED");
    const rows = await h.db.select().from(validators);
    const indices = rows.map((r) => r.keyIndex);
    assert.equal(new Set(indices).size, indices.length);
    assert.equal(new Set(rows.map((r) => r.pubkey)).size, rows.length);
    assert.ok(
      rows.every(
        (r) =>
          r.encryptedSigningKey.startsWith("v1.") &&
          !r.encryptedSigningKey.includes(h.config.eth.operatorSeed),
      ),
    );
  });

  test("Idempotency-Key: a retry returns the same provision; another body is 409", async () => {
    const first = await post(a.apiKey, { attributes: attrs({ validatorsCount: 1 }) }, "retry-1");
    // The answer said CREATED while the provision was IN_PROGRESS; `provisionStatus` says which.
    assert.deepEqual(
      [first.body.result.status, first.body.result.provisionStatus],
      ["CREATED", "IN_PROGRESS"],
    );
    const again = await post(a.apiKey, { attributes: attrs({ validatorsCount: 1 }) }, "retry-1");
    assert.equal(again.status, 200);
    assert.equal(again.body.result.provisionId, first.body.result.provisionId);
    const other = await post(a.apiKey, { attributes: attrs({ validatorsCount: 2 }) }, "retry-1");
    assert.equal(other.status, 409);
    assert.equal(other.body.code, "IDEMPOTENCY_KEY_REUSED");
    // The same key in another organisation is independent.
    const otherOrg = await post(b.apiKey, { attributes: attrs({ validatorsCount: 1 }) }, "retry-1");
    assert.notEqual(otherOrg.body.result.provisionId, first.body.result.provisionId);
    await waitForProvision(h.app, a.apiKey, first.body.result.provisionId);
    await waitForProvision(h.app, b.apiKey, otherOrg.body.result.provisionId);
    const done = await post(a.apiKey, { attributes: attrs({ validatorsCount: 1 }) }, "retry-1");
    assert.equal(done.body.result.provisionStatus, "CREATED", JSON.stringify(done.body));
    const rows = await h.db
      .select()
      .from(validators)
      .where(eq(validators.provisionId, first.body.result.provisionId));
    assert.equal(rows.length, 1);
  });

  test("another organisation's or an unknown provisionId → 404; malformed → 400", async () => {
    const mine = (await post(a.apiKey, { attributes: attrs({ validatorsCount: 1 }) })).body.result
      .provisionId;
    for (const path of ["/api/validators", "/api/deposit-details"]) {
      const foreign = await supertest(h.app).get(path).query({ provisionId: mine }).set("api-key", b.apiKey);
      assert.equal(foreign.status, 404);
      assert.equal(foreign.body.code, "PROVISION_NOT_FOUND");
      const unknown = await supertest(h.app)
        .get(path)
        .query({ provisionId: "7b0f7e8e-1111-4a4a-9a9a-000000000000" })
        .set("api-key", a.apiKey);
      assert.equal(unknown.status, 404);
      const bad = await supertest(h.app).get(path).query({ provisionId: "nope" }).set("api-key", a.apiKey);
      assert.equal(bad.status, 400);
    }
    await waitForProvision(h.app, a.apiKey, mine);
  });
});
