import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { compactDecrypt, decodeProtectedHeader, exportJWK, generateKeyPair } from "jose";
import supertest from "supertest";
import { createApp } from "../../control-plane/src/app.ts";
import { createLogger } from "../../control-plane/src/log.ts";
import type { ConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";
import { DEV_ACCOUNTS } from "../../devnet/beacon/execution.ts";
import { makeOrganisation, type TestOrganisation } from "../helpers/accounts.ts";
import {
  type ControlPlaneHarness,
  createControlPlaneHarness,
  recordExamples,
} from "../helpers/control-plane.ts";
import {
  advanceToEndOfEpoch,
  advanceUntil,
  execute,
  laterDevnet,
  nobleVerifiesExit,
  onChain,
  provisionedDevnet,
  startWorker,
  waitForProvision,
} from "./fixtures.ts";

/**
 * Pre-signed exits handed out as a JWE (decrypted here with jose and the client's private key, verified with
 * noble, accepted by the node's pool and processed by Lodestar's rules), and every refusal: bad input, what
 * the chain would refuse, another organisation's validators. The organisation's validators are in the
 * consensus devnet's genesis (16 interop validators beside them), their keys with the devnet's validator
 * client; the queued partial withdrawal is a real EIP-7002 request mined on anvil.
 */
const WD = DEV_ACCOUNTS.user;
const GWEI = 1_000_000_000n;
let h: ControlPlaneHarness;
let devnet: ConsensusDevnet;
let a: TestOrganisation;
let b: TestOrganisation;
let app: Awaited<ReturnType<typeof createApp>>;
let legacy: string[];
let compounding: string[];
const logs: string[] = [];

before(async () => {
  // The devnet's genesis holds the validators provisioned below, so it starts after them, on ports the
  // control plane is configured with now.
  const ports = await laterDevnet();
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "beacon-provisioning",
    // The four signing calls below fit; the last test goes past it.
    ETH_EXIT_SIGNING_PER_MINUTE: "6",
    ...ports.env,
  });
  // The same app with a logger we read: nothing of an exit (signature, JWE) may reach the log.
  app = await createApp({
    config: h.config,
    logger: createLogger({
      level: "info",
      service: "test",
      destination: { write: (line) => logs.push(line) },
    }),
    db: h.db,
    redis: h.redis,
    checkResponses: true,
    recordExamples,
  });
  a = await makeOrganisation(h.db);
  b = await makeOrganisation(h.db);
  const worker = await startWorker(h);
  const provision = async (attributes: object) => {
    const res = await supertest(app).post("/api/provision").set("api-key", a.apiKey).send({ attributes });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const done = (await waitForProvision(app, a.apiKey, res.body.result.provisionId)).body;
    return done.results.map((r: { validatorAddress: string }) => r.validatorAddress);
  };
  legacy = await provision({ withdrawalAddress: WD, validatorsCount: 4, batch: false });
  compounding = await provision({
    withdrawalAddress: WD,
    validatorsCount: 2,
    batch: false,
    compounding: true,
    amountPerValidator: 64,
  });
  await worker.close();
  devnet = await provisionedDevnet(h, ports, [
    ...legacy.slice(0, 3).map((pubkey) => ({ pubkey, balance: 32n * GWEI, online: true })),
    ...compounding.map((pubkey) => ({ pubkey, balance: 64n * GWEI, online: true })),
    // Under 32 ETH at genesis: pending_initialized, never activated.
    { pubkey: legacy[3] as string, balance: 16n * GWEI },
  ]);
  await devnet.advance(1);
  // Active from epoch 0; exitable from epoch 2 (SHARD_COMMITTEE_PERIOD on the devnet).
});
after(async () => {
  await h?.close();
  await devnet?.close();
});

const post = (path: string, body: object, key = a.apiKey) =>
  supertest(app).post(path).set("api-key", key).send(body);

describe("pre-signed exits (POST /api/validators/exit-messages)", () => {
  test("a JWE the client decrypts with its private key; the exits verify and the node accepts them", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ECDH-ES", { crv: "P-256" });
    const jwk = await exportJWK(publicKey);
    const res = await post("/api/validators/exit-messages", {
      pubkeys: [legacy[0], compounding[0]],
      recipientKey: jwk,
    });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    const jwe: string = res.body.encryptedExits;
    assert.equal(jwe.split(".").length, 5, "compact JWE");
    const header = decodeProtectedHeader(jwe);
    assert.equal(header.alg, "ECDH-ES");
    assert.equal(header.enc, "A256GCM");
    assert.equal(header.kid, res.body.recipientKeyThumbprint);
    const { plaintext } = await compactDecrypt(jwe, privateKey);
    const body = JSON.parse(new TextDecoder().decode(plaintext));
    assert.equal(body.network, "hoodi");
    assert.deepEqual(
      body.exits.map((e: { validatorAddress: string }) => e.validatorAddress),
      [legacy[0], compounding[0]],
    );
    for (const e of body.exits) assert.ok(nobleVerifiesExit(e.signedVoluntaryExit, e.validatorAddress));
    // Nothing of it in clear: not in the response beside the JWE, not in the log.
    const signature: string = body.exits[0].signedVoluntaryExit.signature;
    assert.ok(!JSON.stringify(res.body).includes(signature.slice(2, 40)));
    assert.ok(!logs.join("").includes(signature.slice(2, 40)), "the signature never reaches the log");
    assert.ok(!logs.join("").includes(jwe.slice(0, 40)), "the JWE never reaches the log");
    const [audit] = await h.sql`select * from exit_message_handouts where id = ${res.body.handoutId}`;
    assert.equal(audit?.organisation_id, a.id);
    assert.deepEqual(audit?.pubkeys, [legacy[0], compounding[0]]);
    assert.equal(audit?.recipient_key_thumbprint, res.body.recipientKeyThumbprint);

    // An X25519 key works too.
    const x = await generateKeyPair("ECDH-ES", { crv: "X25519" });
    const okp = await post("/api/validators/exit-messages", {
      pubkeys: [legacy[0]],
      recipientKey: await exportJWK(x.publicKey),
    });
    assert.equal(okp.status, 200, JSON.stringify(okp.body));
    assert.ok((await compactDecrypt(okp.body.encryptedExits, x.privateKey)).plaintext.length > 0);

    // The client can broadcast one whenever it wants: the node's pool takes it once the validator may exit.
    const young = await fetch(`${devnet.url}/eth/v1/beacon/pool/voluntary_exits`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body.exits[1].signedVoluntaryExit),
    });
    assert.equal(young.status, 400, "refused before SHARD_COMMITTEE_PERIOD");
    // The next slot is in epoch 2: active for SHARD_COMMITTEE_PERIOD epochs.
    await advanceToEndOfEpoch(devnet, 1);
    const pooled = await fetch(`${devnet.url}/eth/v1/beacon/pool/voluntary_exits`, {
      method: "POST",
      headers: { "content-type": "application/json" },
      body: JSON.stringify(body.exits[1].signedVoluntaryExit),
    });
    assert.equal(pooled.status, 200, await pooled.text());
    // In the next block an online proposer makes, then processed by the state transition.
    await advanceUntil(
      devnet,
      async () => (await onChain(devnet, compounding[0] as string))?.status === "active_exiting",
      "the pooled exit processed",
      1,
    );
  });

  test("bad keys and lists → 400 VALIDATION_ERROR naming the field", async () => {
    const { publicKey, privateKey } = await generateKeyPair("ECDH-ES", { crv: "P-256", extractable: true });
    const pub = await exportJWK(publicKey);
    const cases: [object, string][] = [
      [{ pubkeys: [legacy[0]], recipientKey: await exportJWK(privateKey) }, "recipientKey.d"],
      [{ pubkeys: [legacy[0]], recipientKey: { ...pub, crv: "secp256k1" } }, "recipientKey.crv"],
      [{ pubkeys: [legacy[0]], recipientKey: { ...pub, x: "AAAA" } }, "recipientKey"],
      [{ pubkeys: [], recipientKey: pub }, "pubkeys"],
      [{ pubkeys: [legacy[0], legacy[0]], recipientKey: pub }, "pubkeys"],
      [{ pubkeys: ["0x1234"], recipientKey: pub }, "pubkeys.0"],
      [{ pubkeys: [legacy[0]] }, "recipientKey"],
      // Regression: low-order X25519 points (RFC 7748 §6.1: every shared secret all zeros) answered 500.
      ...["00", "01", "e0eb7a7c3b41b8ae1656e3faf19fc46ada098deb9c32b1fd866205165f49b800"].map(
        (hex): [object, string] => [
          {
            pubkeys: [legacy[0]],
            recipientKey: {
              kty: "OKP",
              crv: "X25519",
              x: Buffer.from(hex.padEnd(64, "0"), "hex").toString("base64url"),
            },
          },
          "recipientKey.x",
        ],
      ),
    ];
    for (const [body, field] of cases) {
      const res = await post("/api/validators/exit-messages", body);
      assert.equal(res.status, 400, `${field}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, "VALIDATION_ERROR");
      assert.ok(
        res.body.details.some((d: { field: string }) => d.field === field),
        `${field}: ${JSON.stringify(res.body.details)}`,
      );
    }
  });
});

describe("refusals of exits, withdrawal requests and consolidations", () => {
  test("another organisation's validators are 404 on every endpoint", async () => {
    const { publicKey } = await generateKeyPair("ECDH-ES", { crv: "P-256" });
    const calls: [string, object][] = [
      ["/api/validators/exit", { pubkeys: [legacy[1]] }],
      ["/api/validators/exit-messages", { pubkeys: [legacy[1]], recipientKey: await exportJWK(publicKey) }],
      ["/api/validators/withdrawal-requests", { requests: [{ pubKey: legacy[1] }] }],
      [
        "/api/validators/consolidations",
        { requests: [{ sourcePubKey: legacy[1], targetPubKey: legacy[1] }] },
      ],
      [
        "/api/validators/consolidations",
        { requests: [{ sourcePubKey: compounding[1], targetPubKey: `0x${"ab".repeat(48)}` }] },
      ],
    ];
    for (const [path, body] of calls) {
      const key =
        path.endsWith("consolidations") && JSON.stringify(body).includes("abab") ? a.apiKey : b.apiKey;
      const res = await post(path, body, key);
      assert.equal(res.status, 404, `${path}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, "VALIDATOR_NOT_FOUND");
    }
    assert.equal(
      (await h.sql`select count(*)::int as n from exit_message_handouts where organisation_id = ${b.id}`)[0]
        ?.n,
      0,
    );
  });

  test("what the chain would refuse is refused with a clear 4xx", async () => {
    const expect = async (path: string, body: object, status: number, code: string) => {
      const res = await post(path, body);
      assert.equal(res.status, status, `${path} ${JSON.stringify(body)}: ${JSON.stringify(res.body)}`);
      assert.equal(res.body.code, code);
      return res;
    };
    // A validator not yet active (still pending) cannot exit.
    await expect("/api/validators/exit", { pubkeys: [legacy[3]] }, 409, "VALIDATOR_NOT_ACTIVE");
    await expect(
      "/api/validators/withdrawal-requests",
      { requests: [{ pubKey: legacy[3] }] },
      409,
      "VALIDATOR_NOT_ACTIVE",
    );
    // Partial withdrawals need 0x02 credentials; a partial may not go below 32 ETH.
    await expect(
      "/api/validators/withdrawal-requests",
      { requests: [{ pubKey: legacy[1], amount: 1 }] },
      400,
      "VALIDATOR_NOT_COMPOUNDING",
    );
    const low = await expect(
      "/api/validators/withdrawal-requests",
      { requests: [{ pubKey: compounding[1], amount: "33" }] },
      400,
      "PARTIAL_WITHDRAWAL_TOO_LARGE",
    );
    // 64 ETH and a few epochs of rewards and penalties: the balance above 32 ETH may leave, to the Gwei.
    const balance = BigInt((await onChain(devnet, compounding[1] as string))?.balance ?? 0);
    assert.match(low.body.error, new RegExp(`at most ${balance - 32n * GWEI} Gwei`));
    // Queued partial withdrawals block an exit (Electra asserts there are none): a real EIP-7002 request.
    const partial = await post("/api/validators/withdrawal-requests", {
      requests: [{ pubKey: compounding[1], amount: 1 }],
    });
    assert.equal(partial.status, 200, JSON.stringify(partial.body));
    await execute(devnet, partial.body.results[0]);
    const index = (await onChain(devnet, compounding[1] as string))?.index;
    const queued = (await (
      await fetch(`${devnet.url}/eth/v1/beacon/states/head/pending_partial_withdrawals`)
    ).json()) as { data: { validator_index: string; amount: string }[] };
    assert.deepEqual(
      queued.data.map((w) => [w.validator_index, w.amount]),
      [[index, String(GWEI)]],
    );
    await expect("/api/validators/exit", { pubkeys: [compounding[1]] }, 409, "PENDING_PARTIAL_WITHDRAWALS");
    await expect(
      "/api/validators/withdrawal-requests",
      { requests: [{ pubKey: compounding[1] }] },
      409,
      "PENDING_PARTIAL_WITHDRAWALS",
    );
    // Consolidations: a target without 0x02 credentials, a switch of a 0x02 validator, an exiting source.
    await expect(
      "/api/validators/consolidations",
      { requests: [{ sourcePubKey: legacy[1], targetPubKey: legacy[2] }] },
      400,
      "TARGET_NOT_COMPOUNDING",
    );
    await expect(
      "/api/validators/consolidations",
      { requests: [{ sourcePubKey: compounding[1], targetPubKey: compounding[1] }] },
      400,
      "ALREADY_COMPOUNDING",
    );
    await expect(
      "/api/validators/consolidations",
      { requests: [{ sourcePubKey: compounding[0], targetPubKey: compounding[1] }] },
      409,
      "VALIDATOR_NOT_ACTIVE",
    );
    // Bad input in the area's format.
    await expect(
      "/api/validators/withdrawal-requests",
      { requests: [{ pubKey: legacy[1], amount: "1.0000000001" }] },
      400,
      "VALIDATION_ERROR",
    );
    await expect("/api/validators/withdrawal-requests", { requests: [] }, 400, "VALIDATION_ERROR");
    await expect(
      "/api/validators/consolidations",
      { requests: [{ sourcePubKey: legacy[1] }] },
      400,
      "VALIDATION_ERROR",
    );
    await expect(
      "/api/validators/exit",
      { pubkeys: Array.from({ length: 101 }, () => legacy[1]) },
      400,
      "VALIDATION_ERROR",
    );
  });

  test("the calls that sign exits are bounded per organisation: 429 with Retry-After", async () => {
    const { publicKey } = await generateKeyPair("ECDH-ES", { crv: "P-256" });
    const body = { pubkeys: [legacy[2]], recipientKey: await exportJWK(publicKey) };
    const statuses: number[] = [];
    let limited: supertest.Response | undefined;
    for (let i = 0; i < 4 && !limited; i++) {
      const res = await post("/api/validators/exit-messages", body);
      statuses.push(res.status);
      if (res.status === 429) limited = res;
    }
    assert.ok(limited, `no 429 after ${statuses}`);
    assert.equal(limited.body.code, "RATE_LIMITED");
    assert.ok(Number(limited.headers["retry-after"]) > 0);
    // Another organisation has its own budget.
    assert.equal((await post("/api/validators/exit-messages", body, b.apiKey)).status, 404);
  });
});
