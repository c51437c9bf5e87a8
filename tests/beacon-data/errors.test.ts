import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import supertest from "supertest";
import { QUEUES } from "../../control-plane/src/queues.ts";
import type { ConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";
import { loadLodestar } from "../beacon-consensus/load.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { notBrokenDown } from "../helpers/cl-breakdown.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { startJobs } from "../helpers/jobs.ts";

/** Every beacon-data endpoint's bad input: a clear 4xx in `{error, code, details?}`, never a 500. */
let h: ControlPlaneHarness;
let key: string;
let scopedKey: string;
const { interopSecretKey, startConsensusDevnet } = await loadLodestar();
// A pubkey the devnet's chain knows (its genesis validator 0's): only those can be registered.
const PK = `0x${Buffer.from(interopSecretKey(0).toPublicKey().toBytes()).toString("hex")}`;
let devnet: ConsensusDevnet;

let jobs: Awaited<ReturnType<typeof startJobs>> | undefined;
before(async () => {
  devnet = await startConsensusDevnet({ validators: 8 });
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "beacon-data",
    ETH_BEACON_URL: devnet.url,
  });
  key = (await makeOrganisation(h.db)).apiKey;
  scopedKey = (
    await makeOrganisation(h.db, {
      scope: { ethereum: { validator_addresses: [`0x${"cd".repeat(48)}`], delegator_addresses: [] } },
    })
  ).apiKey;
  await h.sql`insert into beacon_indexer_cursor (id, epoch, finalized_epoch, genesis_time, seconds_per_slot, slots_per_epoch)
    values ('beacon', 100, 98, 1742213400, 12, 32)`;
  // The worker's roll-up of registrations (POST /api/validators/register waits for it).
  jobs = await startJobs(h, [QUEUES.beaconRegistrations.name]);
});
after(async () => {
  await jobs?.close();
  await h.close();
  await devnet.close();
});

const get = (path: string, query: Record<string, unknown>, k = key) =>
  supertest(h.app).get(path).set("api-key", k).query(query);

describe("bad input", () => {
  const cases: [string, string, Record<string, unknown>, number, string][] = [
    ["per_page over 100", "/api/validators/list", { per_page: 101 }, 400, "VALIDATION_ERROR"],
    ["page 0", "/api/transactions", { page: 0 }, 400, "VALIDATION_ERROR"],
    ["malformed pubkey", "/api/validators/list", { pubkeys: "0x1234" }, 400, "VALIDATION_ERROR"],
    [
      "malformed pubkey in a comma list",
      "/api/transactions",
      { pubkeys: `${PK},0xzz` },
      400,
      "VALIDATION_ERROR",
    ],
    [
      "malformed withdrawal address",
      "/api/validators/list",
      { withdrawal_addresses: "0x12" },
      400,
      "VALIDATION_ERROR",
    ],
    ["start_epoch missing", "/api/rewards/epoch", { end_epoch: 3 }, 400, "VALIDATION_ERROR"],
    ["negative epoch", "/api/rewards/epoch", { start_epoch: -1, end_epoch: 3 }, 400, "VALIDATION_ERROR"],
    [
      "end_epoch < start_epoch",
      "/api/rewards/epoch",
      { start_epoch: 9, end_epoch: 3 },
      400,
      "VALIDATION_ERROR",
    ],
    [
      "epochs not indexed yet",
      "/api/rewards/epoch",
      { start_epoch: 90, end_epoch: 101 },
      503,
      "NOT_INDEXED_YET",
    ],
    [
      "per_page over 100 (epoch)",
      "/api/rewards/epoch",
      { start_epoch: 0, end_epoch: 1, per_page: 500 },
      400,
      "VALIDATION_ERROR",
    ],
    [
      "bad date",
      "/api/rewards/date",
      { start_date: "2025-13-01", end_date: "2025-12-31", interval: "1d" },
      400,
      "VALIDATION_ERROR",
    ],
    [
      "bad interval",
      "/api/rewards/date",
      { start_date: "2025-01-01", end_date: "2025-12-31", interval: "2d" },
      400,
      "VALIDATION_ERROR",
    ],
    [
      "end_date < start_date",
      "/api/rewards/date",
      { start_date: "2025-02-01", end_date: "2025-01-01", interval: "1d" },
      400,
      "VALIDATION_ERROR",
    ],
  ];
  for (const [name, path, query, status, code] of cases) {
    test(`${name} → ${status} ${code}`, async () => {
      const res = await get(path, query);
      assert.equal(res.status, status, JSON.stringify(res.body));
      assert.equal(res.body.code, code);
      assert.equal(typeof res.body.error, "string");
    });
  }

  test("epochs beyond the indexed head: 503 NOT_INDEXED_YET says when to retry", async () => {
    const res = await get("/api/rewards/epoch", { start_epoch: 90, end_epoch: 101 });
    assert.equal(res.status, 503, JSON.stringify(res.body));
    assert.ok(Number(res.headers["retry-after"]) >= 1, JSON.stringify(res.headers));
  });

  test("no API key → 401 on every endpoint", async () => {
    for (const path of [
      "/api/validators/list",
      "/api/rewards/overview",
      "/api/rewards/epoch",
      "/api/rewards/date",
      "/api/transactions",
    ]) {
      const res = await supertest(h.app).get(path);
      assert.equal(res.status, 401, path);
      assert.equal(res.body.code, "MISSING_API_KEY");
    }
  });

  test("register: malformed or too many pubkeys → 400; outside the key's scope → 403", async () => {
    const post = (body: object, k = key) =>
      supertest(h.app).post("/api/validators/register").set("api-key", k).send(body);
    assert.equal((await post({ pubkeys: ["0x12"] })).status, 400);
    assert.equal((await post({ pubkeys: [] })).status, 400);
    assert.equal((await post({ pubkeys: Array(101).fill(PK) })).status, 400);
    const res = await post({ pubkeys: [PK] }, scopedKey);
    assert.equal(res.status, 403, JSON.stringify(res.body));
    assert.equal(res.body.code, "ADDRESS_NOT_IN_SCOPE");
  });
});

describe("happy shapes on an empty index", () => {
  test("registered pubkey is listed (repeated and comma-list filters), other organisations see nothing", async () => {
    const reg = await supertest(h.app)
      .post("/api/validators/register")
      .set("api-key", key)
      .send({ pubkeys: [PK.toUpperCase().replace("0X", "0x")] });
    assert.equal(reg.status, 200, JSON.stringify(reg.body));
    assert.deepEqual(reg.body.registered, [PK]);
    for (const query of [
      `pubkeys=${PK}&pubkeys=0x${"ee".repeat(48)}`,
      `pubkeys=${PK},0x${"ee".repeat(48)}`,
    ]) {
      const res = await supertest(h.app).get(`/api/validators/list?${query}`).set("api-key", key);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      assert.deepEqual(
        { total: res.body.total, page: res.body.page, per_page: res.body.per_page, pages: res.body.pages },
        { total: 1, page: 1, per_page: 10, pages: 1 },
      );
      assert.equal(res.body.results[0].validator.pubkey, PK);
      assert.equal(res.body.results[0].validator.balances.current_staked, "0");
    }
    const other = (await makeOrganisation(h.db)).apiKey;
    assert.equal((await get("/api/validators/list", {}, other)).body.total, 0);
    const epochs = await get("/api/rewards/epoch", { start_epoch: 0, end_epoch: 100, per_page: 5, page: 3 });
    assert.equal(epochs.status, 200, JSON.stringify(epochs.body));
    assert.deepEqual(
      epochs.body.interval_summary.map((e: { epoch: number }) => e.epoch),
      [10, 11, 12, 13, 14],
    );
    assert.equal(epochs.body.pages, 21);
    const dates = await get("/api/rewards/date", {
      start_date: "2025-01-01",
      end_date: "2025-01-31",
      interval: "7d",
    });
    assert.equal(dates.status, 200, JSON.stringify(dates.body));
    assert.deepEqual(
      dates.body.interval_summary.map((d: { date: string }) => d.date),
      ["2025-01-01", "2025-01-08", "2025-01-15", "2025-01-22", "2025-01-29"],
    );
    assert.equal(dates.body.indexing, true, "the date read says its zeros may be 'not indexed yet'");
    assert.equal(dates.body.indexed_through_epoch, 100);
    const overview = await get("/api/rewards/overview", {});
    assert.deepEqual(overview.body, {
      network: "HOODI",
      provider: "stake",
      total_active_stake: "0",
      total_cl_rewards: "0",
      total_cl_breakdown: notBrokenDown("0"),
      total_el_rewards: "0",
      total_mev_rewards: "0",
      total_priority_fees: "0",
      // The index holds epochs 0-100 of 2025-03-17, its genesis day: no window reaches back whole.
      apy_7d: null,
      apy_30d: null,
      apy_365d: null,
      apy_unit: "percent_per_year",
      // Epoch 100 of a chain whose clock (genesis 2025-03-17, 384 s epochs) is far past it: still indexing.
      indexed_through_epoch: 100,
      indexing: true,
    });
    // Caught up with the chain's clock (computed here from the cursor's genesis and epoch length): the zeros are real.
    const head = Math.floor((Date.now() / 1000 - 1742213400) / 384) - 1;
    await h.sql`update beacon_indexer_cursor set epoch = ${head}, finalized_epoch = ${head - 2} where id = 'beacon'`;
    const caughtUp = await get("/api/rewards/overview", {});
    assert.equal(caughtUp.body.indexing, false, JSON.stringify(caughtUp.body));
    assert.equal(caughtUp.body.indexed_through_epoch, head);
    await h.sql`update beacon_indexer_cursor set epoch = 100, finalized_epoch = 98 where id = 'beacon'`;
  });
});
