import assert from "node:assert/strict";
import { createServer, type IncomingMessage, type ServerResponse } from "node:http";
import type { AddressInfo } from "node:net";
import { after, before, test } from "node:test";
import supertest from "supertest";
import { toHex } from "viem";
import { QUEUES } from "../../control-plane/src/queues.ts";
import type { ConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";
import { DEV_ACCOUNTS } from "../../devnet/beacon/execution.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { CL_BREAKDOWN_FIELDS, type ClBreakdownField, notBrokenDown } from "../helpers/cl-breakdown.ts";
import { type ControlPlaneHarness, createControlPlaneHarness } from "../helpers/control-plane.ts";
import { areaOf, startJobs } from "../helpers/jobs.ts";
import { loadLodestar } from "./load.ts";

const {
  depositCall,
  getClient,
  interopSecretKey,
  MIN_SLASHING_PENALTY_QUOTIENT_ELECTRA,
  SLOTS_PER_EPOCH,
  startConsensusDevnet,
} = await loadLodestar();
type ApiClient = import("./lodestar.ts").ApiClient;

/**
 * The CL reward breakdown (docs/beacon-data.md, "CL reward breakdown") indexed from the consensus devnet
 * (Lodestar's state transition, anvil as its execution layer), 64 validators of which 4 are offline and
 * one slashed mid-run, every one of them registered by one organisation. For every validator and epoch, as
 * `/api/rewards/epoch` returns it: the parts sum to `cl_reward`, nothing is left unexplained or not broken
 * down, `cl_reward` is the balance change with the epoch's withdrawals added back and its deposits applied taken off
 * (one validator is topped up on the deposit contract) (read with Lodestar's own
 * client, `@lodestar/api`), and each part equals what the devnet's rewards endpoints answer, parsed by
 * `@lodestar/api` as well: attestations of epoch − 2, sync committee and proposer of the epoch's blocks, and
 * the slashed validator's initial penalty from its effective balance. Offline validators' source and target
 * parts are negative (a missed head vote costs nothing since Altair); the overview's totals are the rows' sums.
 */
const OFFLINE = [60, 61, 62, 63];
const SLASHED = 5;
/** Topped up with 1 ETH on the deposit contract (EIP-6110): a deposit applied is no reward. */
const TOPPED = 10;
const TOP_UP = 1_000_000_000n;
const LAST = 5;
let devnet: ConsensusDevnet;
let h: ControlPlaneHarness;
let jobs: Awaited<ReturnType<typeof startJobs>>;
let api: ApiClient;
let apiKey: string;

const PARTS = CL_BREAKDOWN_FIELDS;
type Breakdown = Record<ClBreakdownField, string>;
interface Row {
  index: number;
  cl_reward: string;
  cl_breakdown: Breakdown;
}

before(async () => {
  devnet = await startConsensusDevnet({ execution: true, validators: 64, offline: OFFLINE });
  api = getClient({ baseUrl: devnet.url }, { config: devnet.chain.config });
  h = await createControlPlaneHarness({
    CONTROL_PLANE_AREAS: "beacon-data",
    ETH_BEACON_URL: devnet.url,
    ETH_EXECUTION_URL: devnet.execution?.url ?? "",
    BEACON_INDEXER_START_EPOCH: "0",
    BEACON_INDEXER_MAX_EPOCHS: "100",
  });
  jobs = await startJobs(h, [QUEUES.beaconRegistrations.name]);
  apiKey = (await makeOrganisation(h.db)).apiKey;
});
after(async () => {
  await jobs?.close();
  await h?.close();
  await devnet?.close();
});

const epochEnd = (epoch: number) => (epoch + 1) * SLOTS_PER_EPOCH - 1;
/**
 * Slots made until the head block is at `slot` or later: the indexer reads an epoch once the node's head
 * is at its last slot, and that slot may be empty (an offline or slashed proposer's).
 */
const advanceToBlock = async (slot: number) => {
  const headBlock = async () =>
    (await api.beacon.getBlockHeader({ blockId: "head" })).value().header.message.slot;
  while ((await headBlock()) < slot) await devnet.advance();
};
const get = (path: string, query: Record<string, unknown> = {}) =>
  supertest(h.app).get(path).set("api-key", apiKey).query(query);
const sum = (b: Breakdown) => PARTS.reduce((a, p) => a + BigInt(b[p]), 0n);
const balancesAt = async (stateId: number | "genesis") =>
  new Map(
    (await api.beacon.getStateValidatorBalances({ stateId }))
      .value()
      .map((b) => [b.index, BigInt(b.balance)]),
  );

/** What the devnet's endpoints say each validator earned in `epoch`, by part, and its withdrawals. */
async function fromEndpoints(epoch: number) {
  const parts = new Map<number, Partial<Record<ClBreakdownField, bigint>>>();
  const add = (i: number, part: ClBreakdownField, amount: number | bigint) => {
    const p = parts.get(i) ?? {};
    p[part] = (p[part] ?? 0n) + BigInt(amount);
    parts.set(i, p);
  };
  if (epoch >= 2) {
    for (const r of (await api.beacon.getAttestationsRewards({ epoch: epoch - 2 })).value().totalRewards) {
      add(r.validatorIndex, "attestation_source", r.source);
      add(r.validatorIndex, "attestation_target", r.target);
      add(r.validatorIndex, "attestation_head", r.head);
      add(r.validatorIndex, "attestation_inactivity", r.inactivity);
    }
  }
  const withdrawn = new Map<number, bigint>();
  // Deposits applied in the epoch: pending at its start + requested in its blocks − pending at its end.
  let deposited = 0n;
  const pending = async (stateId: number | "genesis") =>
    (await api.beacon.getPendingDeposits({ stateId }))
      .value()
      .reduce((a, d) => a + (toHex(d.pubkey) === toppedPubkey ? BigInt(d.amount) : 0n), 0n);
  deposited +=
    (await pending(epoch > 0 ? epochEnd(epoch - 1) : "genesis")) - (await pending(epochEnd(epoch)));
  for (let slot = epoch * SLOTS_PER_EPOCH; slot <= epochEnd(epoch); slot++) {
    const block = await api.beacon.getBlockV2({ blockId: slot });
    if (block.status === 404) continue;
    const { message } = block.value();
    const proposer = (await api.beacon.getBlockRewards({ blockId: slot })).value();
    add(proposer.proposerIndex, "proposer", proposer.total);
    for (const s of (await api.beacon.getSyncCommitteeRewards({ blockId: slot, validatorIds: [] })).value())
      add(s.validatorIndex, "sync_committee", s.reward);
    const body = message.body as {
      executionPayload: { withdrawals: { validatorIndex: number; amount: bigint }[] };
      executionRequests: { deposits: { pubkey: Uint8Array; amount: number }[] };
      proposerSlashings: { signedHeader1: { message: { proposerIndex: number } } }[];
    };
    for (const d of body.executionRequests.deposits)
      if (toHex(d.pubkey) === toppedPubkey) deposited += BigInt(d.amount);
    for (const w of body.executionPayload.withdrawals)
      withdrawn.set(w.validatorIndex, (withdrawn.get(w.validatorIndex) ?? 0n) + BigInt(w.amount));
    for (const s of body.proposerSlashings) {
      const slashed = s.signedHeader1.message.proposerIndex;
      const v = (await api.beacon.getStateValidator({ stateId: slot, validatorId: slashed })).value();
      add(
        slashed,
        "slashing",
        -Math.floor(v.validator.effectiveBalance / MIN_SLASHING_PENALTY_QUOTIENT_ELECTRA),
      );
    }
  }
  return { parts, withdrawn, deposited };
}

let toppedPubkey = "";
/** 1 ETH on the deposit contract for TOPPED, from a dev account; returns once a block carries it. */
async function topUp() {
  const ex = devnet.execution;
  assert.ok(ex);
  const { withdrawalCredentials } = (
    await api.beacon.getStateValidator({ stateId: "head", validatorId: TOPPED })
  ).value().validator;
  const hash = await ex.wallet.sendTransaction({
    chain: null,
    account: DEV_ACCOUNTS.user,
    ...depositCall(interopSecretKey(TOPPED), withdrawalCredentials, Number(TOP_UP), devnet.chain.config),
  });
  const before = await ex.public.getBlockNumber({ cacheTime: 0 });
  while ((await ex.public.getBlockNumber({ cacheTime: 0 })) === before) await devnet.advance();
  assert.equal((await ex.public.getTransactionReceipt({ hash })).status, "success");
}

test("every validator's breakdown sums to its cl_reward, the balance change, and the devnet's rewards endpoints", async () => {
  const pubkeys = (await api.beacon.getStateValidators({ stateId: "head" }))
    .value()
    .map((v) => `0x${Buffer.from(v.validator.pubkey).toString("hex")}`);
  assert.equal(pubkeys.length, 64);
  const res = await supertest(h.app)
    .post("/api/validators/register")
    .set("api-key", apiKey)
    .send({ pubkeys });
  assert.equal(res.status, 200, JSON.stringify(res.body));

  toppedPubkey = pubkeys[TOPPED] as string;
  await devnet.advance(2);
  await topUp();
  await advanceToBlock(3 * SLOTS_PER_EPOCH - 1);
  const slash = await fetch(`${devnet.url}/devnet/slash/${SLASHED}`, { method: "POST" });
  assert.equal(slash.status, 200);
  await advanceToBlock(epochEnd(LAST));
  const { indexer } = await areaOf(h, "beacon-data");
  const written = await indexer.runOnce();
  assert.ok(written.includes(LAST), `epochs written: ${written}`);

  const page = await get("/api/rewards/epoch", { start_epoch: 0, end_epoch: LAST, per_page: 100 });
  assert.equal(page.status, 200, JSON.stringify(page.body));
  const summary = page.body.interval_summary as { epoch: number; validators: Row[] }[];
  let checked = 0;
  let slashings = 0;
  let toppedUp = 0n;
  let before = await balancesAt("genesis");
  for (const { epoch, validators } of summary) {
    const after = await balancesAt(epochEnd(epoch));
    const { parts, withdrawn, deposited } = await fromEndpoints(epoch);
    toppedUp += deposited;
    assert.equal(validators.length, 64, `epoch ${epoch}: every tracked validator has a row`);
    for (const row of validators) {
      const where = `validator ${row.index}, epoch ${epoch}: ${JSON.stringify(row)}`;
      const b = row.cl_breakdown;
      assert.equal(sum(b), BigInt(row.cl_reward), `parts sum to cl_reward; ${where}`);
      assert.equal(b.unexplained, "0", where);
      assert.equal(b.not_broken_down, "0", where);
      const change =
        (after.get(row.index) ?? 0n) -
        (before.get(row.index) ?? 0n) +
        (withdrawn.get(row.index) ?? 0n) -
        (row.index === TOPPED ? deposited : 0n);
      assert.equal(BigInt(row.cl_reward), change, `cl_reward is the balance change; ${where}`);
      const expected = parts.get(row.index) ?? {};
      for (const p of PARTS.slice(0, 7))
        assert.equal(BigInt(b[p]), expected[p] ?? 0n, `${p} as the devnet's endpoints say; ${where}`);
      if (OFFLINE.includes(row.index) && epoch >= 2) {
        assert.ok(BigInt(b.attestation_source) < 0n && BigInt(b.attestation_target) < 0n, where);
      }
      if (b.slashing !== "0") {
        assert.equal(row.index, SLASHED, where);
        slashings++;
      }
      checked++;
    }
    before = after;
  }
  assert.equal(checked, 64 * (LAST + 1));
  assert.equal(slashings, 1, "the slashing's epoch is among those checked");
  assert.equal(toppedUp, TOP_UP, "the top-up was applied within the epochs checked");

  // The overview's totals are the rows' sums, part by part (every epoch indexed is in the page).
  const overview = await get("/api/rewards/overview");
  assert.equal(overview.status, 200, JSON.stringify(overview.body));
  const totals = overview.body.total_cl_breakdown as Breakdown;
  for (const p of PARTS) {
    const rows = summary.flatMap((s) => s.validators).reduce((a, r) => a + BigInt(r.cl_breakdown[p]), 0n);
    assert.equal(BigInt(totals[p]), rows, `overview total of ${p}`);
  }
  assert.equal(sum(totals), BigInt(overview.body.total_cl_rewards));
  assert.deepEqual(page.body.total_cl_breakdown, totals, "the epoch range's totals are the same");
  // And the date read's (every indexed epoch falls within these days), by day and validator too.
  const day = (offset: number) => new Date(Date.now() + offset * 86_400_000).toISOString().slice(0, 10);
  const dates = await get("/api/rewards/date", { start_date: day(-1), end_date: day(1), interval: "7d" });
  assert.equal(dates.status, 200, JSON.stringify(dates.body));
  assert.deepEqual(dates.body.total_cl_breakdown, totals);
  for (const v of dates.body.interval_summary[0].validators as Row[])
    assert.equal(sum(v.cl_breakdown), BigInt(v.cl_reward), JSON.stringify(v));
});

/** A lying node between the indexer and the devnet: rewrites the rewards answers as `lie` says. */
type Lie = "twice" | "unasked" | "not-a-number" | "other-proposer" | "not-served";
let lie: Lie = "twice";
async function lyingNode(req: IncomingMessage, res: ServerResponse) {
  const path = req.url ?? "/";
  const chunks: Buffer[] = [];
  for await (const c of req) chunks.push(c as Buffer);
  const rewards = path.startsWith("/eth/v1/beacon/rewards/");
  if (rewards && lie === "not-served") return void res.writeHead(501).end("Not implemented");
  const upstream = await fetch(new URL(path, devnet.url), {
    method: req.method ?? "GET",
    headers: { "content-type": "application/json" },
    ...(chunks.length ? { body: Buffer.concat(chunks) } : {}),
  });
  let text = await upstream.text();
  if (rewards && upstream.status === 200) {
    const body = JSON.parse(text);
    const first = body.data.total_rewards?.[0];
    if (path.includes("/attestations/") && first) {
      if (lie === "twice") body.data.total_rewards.push(first);
      if (lie === "unasked") first.validator_index = "9999";
      if (lie === "not-a-number") first.source = "1e3";
    }
    if (path.includes("/blocks/") && lie === "other-proposer")
      body.data.proposer_index = String((Number(body.data.proposer_index) + 1) % 64);
    text = JSON.stringify(body);
  }
  res.writeHead(upstream.status, { "content-type": "application/json" }).end(text);
}

test("lying rewards answers are refused and nothing is written; a node that does not serve them leaves the CL reward whole", async () => {
  const server = createServer((req, res) => void lyingNode(req, res).catch(() => res.destroy()));
  await new Promise<void>((r) => server.listen(0, "127.0.0.1", r));
  try {
    const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    const { indexer } = await areaOf(h, "beacon-data", {
      ...h.config,
      eth: { ...h.config.eth, beaconUrl: url },
    });
    await advanceToBlock(epochEnd(LAST + 1));
    const rows = async () =>
      (await h.sql`select count(*)::int as n from beacon_rewards where epoch = ${LAST + 1}`)[0]?.n;
    for (const l of ["twice", "unasked", "not-a-number", "other-proposer"] as const) {
      lie = l;
      await assert.rejects(indexer.runOnce(), /Beacon node answered/, l);
      assert.equal(await rows(), 0, `${l}: nothing written`);
    }
    lie = "not-served";
    assert.deepEqual(await indexer.runOnce(), [LAST + 1]);
    const page = await get("/api/rewards/epoch", {
      start_epoch: LAST + 1,
      end_epoch: LAST + 1,
      per_page: 100,
    });
    const validators = page.body.interval_summary[0].validators as Row[];
    assert.equal(validators.length, 64);
    for (const r of validators)
      assert.deepEqual(r.cl_breakdown, notBrokenDown(r.cl_reward), JSON.stringify(r));
  } finally {
    server.closeAllConnections();
    await new Promise<void>((r) => server.close(() => r()));
  }
});
