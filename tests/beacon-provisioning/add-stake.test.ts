import assert from "node:assert/strict";
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import path from "node:path";
import { after, before, describe, test } from "node:test";
import { createRedis } from "@stake/db/redis/client";
import { createRedisKeys } from "@stake/db/redis/keys";
import { keyIndexAllocator, provisions, validators } from "@stake/db/schema/provisioning";
import { eq } from "drizzle-orm";
import supertest from "supertest";
import { decodeFunctionData, parseAbi } from "viem";
import { hexOf } from "../../control-plane/src/chains/evm.ts";
import { BuilderError } from "../../control-plane/src/errors.ts";
import { blsKeyFromSecret } from "../../control-plane/src/features/beacon-provisioning/bls.ts";
import {
  createProvisionQueue,
  failureReason,
} from "../../control-plane/src/features/beacon-provisioning/jobs.ts";
import {
  decryptKeystore,
  type Keystore,
} from "../../control-plane/src/features/beacon-provisioning/keystore.ts";
import { QUEUES } from "../../control-plane/src/queues.ts";
import type { ConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";
import { DEV_ACCOUNTS } from "../../devnet/beacon/execution.ts";
import { beaconCommands } from "../../scripts/operator/beacon.ts";
import { makeOrganisation, type TestOrganisation } from "../helpers/accounts.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { operatorContext } from "../helpers/operator.ts";
import {
  execute,
  HOODI,
  laterDevnet,
  onChain,
  provisionedDevnet,
  reverifyDepositData,
  startWorker,
  waitForProvision,
} from "./fixtures.ts";

const ABI = parseAbi([
  "function deposit(bytes pubkey, bytes withdrawal_credentials, bytes signature, bytes32 deposit_data_root)",
]);
const WD = "0x1111111111111111111111111111111111111111";
const ETH = 1_000_000_000n;

let h: ControlPlaneHarness;
let devnet: ConsensusDevnet;
let worker: Awaited<ReturnType<typeof startWorker>>;
let a: TestOrganisation;
let b: TestOrganisation;
let compounding: { validatorAddress: string }[];
let legacy: { validatorAddress: string }[];

async function provision(key: string, attributes: object) {
  const res = await supertest(h.app).post("/api/provision").set("api-key", key).send({ attributes });
  assert.equal(res.status, 200, JSON.stringify(res.body));
  return (await waitForProvision(h.app, key, res.body.result.provisionId)).body;
}

/**
 * The validators' states come from the consensus devnet's genesis, which lists the provisioned ones: pk(0)
 * active at 64 ETH, pk(1) active at 2000 ETH (both run by the devnet's validator client), pk(3) at 16 ETH
 * (pending_initialized); pk(2) is not on the chain. The pending deposit is a real top-up on anvil's deposit
 * contract.
 */
before(async () => {
  // The genesis holds validators provisioned below: the devnet starts after them, on ports set now.
  const ports = await laterDevnet();
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "beacon-provisioning",
    ...ports.env,
  });
  worker = await startWorker(h);
  a = await makeOrganisation(h.db);
  b = await makeOrganisation(h.db);
  compounding = (
    await provision(a.apiKey, { withdrawalAddress: WD, validatorsCount: 4, batch: false, compounding: true })
  ).results;
  legacy = (await provision(a.apiKey, { withdrawalAddress: WD, validatorsCount: 1, batch: false })).results;
  devnet = await provisionedDevnet(h, ports, [
    { pubkey: pk(0), balance: 64n * ETH, online: true },
    { pubkey: pk(1), balance: 2000n * ETH, online: true },
    { pubkey: pk(3), balance: 16n * ETH },
  ]);
  await devnet.advance(1);
});
after(async () => {
  await worker.close();
  await h.close();
  await devnet.close();
});

const addStake = (key: string, body: object) =>
  supertest(h.app).post("/api/validators/add-stake").set("api-key", key).send(body);
const pk = (i: number) => compounding[i]?.validatorAddress ?? "";
const wc02 = `0x020000000000000000000000${WD.slice(2)}`;

describe("POST /api/validators/add-stake", () => {
  test("active 0x02 validator: a signed top-up that decodes and verifies independently", async () => {
    assert.equal((await onChain(devnet, pk(0)))?.status, "active_ongoing");
    const res = await addStake(a.apiKey, { pubKey: pk(0), amount: 10.5 });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.validatorAddress, pk(0));
    assert.equal(res.body.addStakeAmount, 10_500_000_000);
    assert.equal(res.body.to, HOODI.depositContract);
    assert.equal(res.body.value, (105n * 10n ** 17n).toString());
    const { args } = decodeFunctionData({ abi: ABI, data: res.body.depositInput });
    const [pubkey, creds, signature, root] = args;
    assert.equal(pubkey, pk(0));
    assert.equal(creds, wc02);
    const [row] = await h.db
      .select()
      .from(validators)
      .where(eq(validators.pubkey, pk(0)));
    reverifyDepositData({
      pubkey,
      withdrawal_credentials: creds,
      amount: 10_500_000_000,
      signature,
      deposit_data_root: root.slice(2),
      fork_version: row?.forkVersion ?? "",
    });
  });

  test("over the 2048 ETH cap counting pending deposits → 400", async () => {
    // 40 ETH on its way: a top-up mined on the deposit contract, queued in the state's pending deposits.
    const topUp = await addStake(a.apiKey, { pubKey: pk(1), amount: 40 });
    assert.equal(topUp.status, 200, JSON.stringify(topUp.body));
    const { to, depositInput: data, value } = topUp.body;
    await execute(devnet, { from: DEV_ACCOUNTS.user, to, data, value });
    const pending = (await (
      await fetch(`${devnet.url}/eth/v1/beacon/states/head/pending_deposits`)
    ).json()) as { data: { pubkey: string; amount: string }[] };
    assert.deepEqual(
      pending.data.map((d) => [d.pubkey, d.amount]),
      [[pk(1), String(40n * ETH)]],
    );
    // The balance is 2000 ETH and what the validator earned since genesis: the room left to the cap, to the Gwei.
    const balance = BigInt((await onChain(devnet, pk(1)))?.balance ?? 0);
    const room = 2048n * ETH - balance - 40n * ETH;
    assert.ok(room > ETH && room < 8n * ETH + ETH, `room ${room}`);
    const eth = (gwei: bigint) => `${gwei / ETH}.${String(gwei % ETH).padStart(9, "0")}`;
    const over = await addStake(a.apiKey, { pubKey: pk(1), amount: eth(room + 1n) });
    assert.equal(over.status, 400, JSON.stringify(over.body));
    assert.equal(over.body.code, "BALANCE_CAP_EXCEEDED");
    const exact = await addStake(a.apiKey, { pubKey: pk(1), amount: eth(room) });
    assert.equal(exact.status, 200, JSON.stringify(exact.body));
  });

  test("0x01, unknown, foreign, inactive and malformed → clear 4xx", async () => {
    const cases: [string, object, number, string][] = [
      ["0x01", { pubKey: legacy[0]?.validatorAddress, amount: 1 }, 400, "VALIDATOR_NOT_COMPOUNDING"],
      ["unknown", { pubKey: `0x${"ab".repeat(48)}`, amount: 1 }, 404, "VALIDATOR_NOT_FOUND"],
      ["not on chain", { pubKey: pk(2), amount: 1 }, 409, "VALIDATOR_NOT_ACTIVE"],
      ["below 1 ETH", { pubKey: pk(0), amount: 0.5 }, 400, "VALIDATION_ERROR"],
      ["bad pubkey", { pubKey: "0x1234", amount: 1 }, 400, "VALIDATION_ERROR"],
    ];
    assert.equal((await onChain(devnet, pk(3)))?.status, "pending_initialized");
    cases.push(["pending on chain", { pubKey: pk(3), amount: 1 }, 409, "VALIDATOR_NOT_ACTIVE"]);
    for (const [name, body, status, code] of cases) {
      const res = await addStake(a.apiKey, body);
      assert.equal(res.status, status, `${name}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, code, name);
    }
    const foreign = await addStake(b.apiKey, { pubKey: pk(0), amount: 1 });
    assert.equal(foreign.status, 404);
    assert.equal(foreign.body.code, "VALIDATOR_NOT_FOUND");
  });
});

describe("validator listings not shown in the spec", () => {
  test("GET /api/validators/provisions lists the organisation's validators with provision ids", async () => {
    const all = await supertest(h.app).get("/api/validators/provisions").set("api-key", a.apiKey);
    assert.equal(all.status, 200);
    assert.equal(all.body.total, 5);
    assert.equal(all.body.page, null);
    assert.ok(
      all.body.results.every(
        (r: { provisionId: string; status: string }) => r.provisionId && r.status === "CREATED",
      ),
    );
    const paged = await supertest(h.app)
      .get("/api/validators/provisions")
      .query({ page: 2, per_page: 2 })
      .set("api-key", a.apiKey);
    assert.deepEqual([paged.body.page, paged.body.pages, paged.body.results.length], [2, 3, 2]);
    const other = await supertest(h.app).get("/api/validators/provisions").set("api-key", b.apiKey);
    assert.equal(other.body.total, 0);
  });

  test("GET /api/validators/count gives every status with its count", async () => {
    const res = await supertest(h.app).get("/api/validators/count").set("api-key", a.apiKey);
    assert.equal(res.status, 200);
    assert.equal(res.body.total, 5);
    assert.equal(res.body.results.length, 9);
    assert.deepEqual(res.body.results[0], { status: "CREATED", count: 5 });
    assert.ok(res.body.results.slice(1).every((r: { count: number }) => r.count === 0));
  });
});

describe("a provision still in progress", () => {
  test("lists no validators and no deposit input yet", async () => {
    const id = "0f0f0f0f-0000-4000-8000-000000000002";
    await h.db.insert(provisions).values({
      id,
      organisationId: a.id,
      network: "hoodi",
      requestHash: "y",
      attributes: {
        withdrawalAddress: WD,
        controllerAddress: null,
        feeRecipient: null,
        validatorsCount: 3,
        batch: true,
        compounding: false,
        amountPerValidatorGwei: "32000000000",
      },
    });
    const res = await supertest(h.app)
      .get("/api/validators")
      .query({ provisionId: id })
      .set("api-key", a.apiKey);
    assert.equal(res.status, 200);
    assert.equal(res.body.provisionStatus, "IN_PROGRESS");
    assert.deepEqual(
      [res.body.results, res.body.total, res.body.depositInput, res.body.validatorsCount],
      [[], 0, null, 3],
    );
    const details = await supertest(h.app)
      .get("/api/deposit-details")
      .query({ provisionId: id })
      .set("api-key", a.apiKey);
    assert.deepEqual(details.body.results, []);
    await h.db.delete(provisions).where(eq(provisions.id, id));
  });
});

describe("a failing job", () => {
  test("ends FAILED with a reason, leaves no validator rows and frees its key indices", async () => {
    const [before] = await h.db.select().from(keyIndexAllocator);
    // 101 validators passes the row-building loop but the batch call refuses it: the failure happens after
    // the validator rows were inserted inside the transaction, which must roll them back.
    const id = "0f0f0f0f-0000-4000-8000-000000000001";
    await h.db.insert(provisions).values({
      id,
      organisationId: a.id,
      network: "hoodi",
      requestHash: "x",
      attributes: {
        withdrawalAddress: WD,
        controllerAddress: null,
        feeRecipient: null,
        validatorsCount: 101,
        batch: true,
        compounding: false,
        amountPerValidatorGwei: "32000000000",
      },
    });
    const connection = createRedis(h.config, { name: "test-queue" });
    const queue = createProvisionQueue({
      connection,
      prefix: createRedisKeys(h.config.redisPrefix).queuePrefix,
    });
    await queue.add(QUEUES.provision.name, { provisionId: id }, { jobId: id, attempts: 1 });
    const res = await waitForProvision(h.app, a.apiKey, id);
    await queue.close();
    await connection.quit();
    assert.equal(res.body.provisionStatus, "FAILED");
    assert.match(res.body.reason, /batch takes 1 to 100/);
    assert.deepEqual(res.body.results, []);
    assert.equal((await h.db.select().from(validators).where(eq(validators.provisionId, id))).length, 0);
    const [afterRow] = await h.db.select().from(keyIndexAllocator);
    assert.equal(afterRow?.nextIndex, before?.nextIndex);
  });
});

test("a FAILED provision tells its own refusal, never an internal error's text", () => {
  assert.equal(
    failureReason(new BuilderError("batch takes 1 to 100 deposits")),
    "batch takes 1 to 100 deposits",
  );
  const internal = failureReason(
    new Error('duplicate key value violates unique constraint "validators_pubkey_key"'),
  );
  assert.doesNotMatch(internal, /duplicate|constraint|validators_pubkey/);
  assert.match(internal, /internal error/);
});

describe("operator keystores export", () => {
  test("writes EIP-2335 keystores that decrypt to keys of the listed pubkeys, and the deposit data", async () => {
    const out = mkdtempSync(path.join(tmpdir(), "keystores-"));
    try {
      const [row] = await h.db
        .select()
        .from(validators)
        .where(eq(validators.pubkey, pk(0)));
      const provisionId = row?.provisionId ?? "";
      const ctx = operatorContext(
        { db: h.db, redis: h.redis, keys: createRedisKeys(h.config.redisPrefix) },
        { KEYSTORE_PASSWORD: "pw", ETH_KEY_ENCRYPTION_KEY: h.config.eth.keyEncryptionKey },
      );
      const cmd = beaconCommands["keystores export"];
      assert.ok(cmd);
      const { data } = (await cmd.run(ctx, {
        positionals: [provisionId],
        flags: { out, iterations: "16" },
      })) as {
        data: { keystores: string[]; depositData: string };
      };
      assert.equal(data.keystores.length, 4);
      for (const file of data.keystores) {
        const ks = JSON.parse(readFileSync(file, "utf8")) as Keystore;
        const secret = decryptKeystore(ks, "pw");
        assert.equal(hexOf(blsKeyFromSecret(BigInt(hexOf(secret))).publicKey), `0x${ks.pubkey}`);
        assert.match(ks.path, /^m\/12381\/3600\/\d+\/0\/0$/);
      }
      const deposits = JSON.parse(readFileSync(data.depositData, "utf8"));
      assert.equal(deposits.length, 4);
      for (const d of deposits) reverifyDepositData(d);
      await assert.rejects(cmd.run(ctx, { positionals: [provisionId], flags: {} }), /--out/);
    } finally {
      rmSync(out, { recursive: true, force: true });
    }
  });
});
