import { bls12_381 } from "@noble/curves/bls12-381.js";
import supertest from "supertest";
import { blsKeyFromSecret } from "../../control-plane/src/features/beacon-provisioning/bls.ts";
import { createSigningKeyDeriver } from "../../control-plane/src/features/beacon-provisioning/eip2333.ts";
import { startWorker } from "../beacon-provisioning/fixtures.ts";
import { makeOrganisation } from "../helpers/accounts.ts";
import { createControlPlaneHarness } from "../helpers/control-plane.ts";

/**
 * `npm run bench:provision`: wall time from POST /api/provision of 100 validators (BENCH_VALIDATORS) until GET /api/validators
 * returns all of them (real Postgres, Redis, BullMQ worker in-process), plus raw BLS and key-derivation speed.
 */
const N = Number(process.env.BENCH_VALIDATORS ?? 100);
const RUNS = Number(process.env.BENCH_RUNS ?? 3);
const ms = (t: number) => `${t.toFixed(1)} ms`;

function rawSpeeds() {
  const derive = createSigningKeyDeriver(new Uint8Array(32).fill(7));
  let t = performance.now();
  const sks = Array.from({ length: N }, (_, i) => derive(i));
  const deriveMs = (performance.now() - t) / N;
  const keys = sks.map(blsKeyFromSecret);
  const msg = new Uint8Array(32).fill(1);
  t = performance.now();
  for (let r = 0; r < 5; r++) for (const k of keys) k.sign(msg);
  const blstMs = (performance.now() - t) / (5 * N);
  const L = bls12_381.longSignatures;
  const sk = Buffer.from((sks[0] ?? 1n).toString(16).padStart(64, "0"), "hex");
  t = performance.now();
  for (let i = 0; i < 5; i++) L.sign(L.hash(msg, "BLS_SIG_BLS12381G2_XMD:SHA-256_SSWU_RO_POP_"), sk);
  const nobleMs = (performance.now() - t) / 5;
  return { deriveMs, blstMs, nobleMs };
}

const h = await createControlPlaneHarness({ ETH_NETWORK: "hoodi" });
const worker = await startWorker(h);
try {
  const org = await makeOrganisation(h.db);
  const raw = rawSpeeds();
  console.log(`EIP-2333 m/12381/3600/i/0/0 (base cached): ${ms(raw.deriveMs)} per key`);
  console.log(`BLS sign @chainsafe/blst (native, used): ${ms(raw.blstMs)} per signature`);
  console.log(`BLS sign @noble/curves (pure JS, verifier): ${ms(raw.nobleMs)} per signature`);
  const times: number[] = [];
  for (let run = 0; run < RUNS; run++) {
    const t0 = performance.now();
    const res = await supertest(h.app)
      .post("/api/provision")
      .set("api-key", org.apiKey)
      .send({
        attributes: { withdrawalAddress: `0x${"ab".repeat(20)}`, validatorsCount: N, batch: run % 2 === 1 },
      });
    if (res.status !== 200) throw new Error(`provision failed: ${JSON.stringify(res.body)}`);
    const provisionId = res.body.result.provisionId as string;
    for (;;) {
      const list = await supertest(h.app)
        .get("/api/validators")
        .query({ provisionId })
        .set("api-key", org.apiKey);
      if (list.body.provisionStatus === "FAILED") throw new Error(list.body.reason);
      if (list.body.results.length === N) break;
      await new Promise((r) => setTimeout(r, 5));
    }
    times.push(performance.now() - t0);
    console.log(
      `run ${run + 1} (${run % 2 ? "batch" : "per-validator"}): ${N} validators provisioned and listed in ${ms(times[run] ?? 0)}`,
    );
  }
  const sorted = [...times].sort((x, y) => x - y);
  console.log(`median ${ms(sorted[Math.floor(sorted.length / 2)] ?? 0)} (target ≤ 1000 ms)`);
} finally {
  await worker.close();
  await h.close();
}
process.exit(0);
