import assert from "node:assert/strict";
import { describe, test } from "node:test";
import { drainReservationLog } from "../../control-plane/src/features/gateway-settlement/drain.ts";
import { readBalance } from "../../control-plane/src/features/gateway-settlement/funding.ts";
import { SETTLEMENT_STEPS } from "../../control-plane/src/features/gateway-settlement/types.ts";
import { eventually, sleep } from "../helpers/eventually.ts";
import { assertBooks, FUNDED, kill, paidLoad, settledCount, startStack, waitForLine } from "./stack.ts";

// Fault tests, real processes and real signals (docs/gateway.md, "Faults and their runbooks"). Each test
// starts a stack of its own (its Postgres, Redis, gateway and workers on ports of their own): the second
// runs during the first's 30 s outage, which is a wait, not work.
describe("Postgres and the settlement worker", { concurrency: 2 }, () => {
  async function json(url: string, init: RequestInit = {}) {
    const res = await fetch(url, init);
    const text = await res.text();
    return { status: res.status, text, body: text ? (JSON.parse(text) as Record<string, unknown>) : {} };
  }

  test("Postgres stopped for 30 s under paid load: the gateway serves from Redis and its caches, the control plane answers 503 and recovers by itself, the worker catches up, nothing is charged twice", async () => {
    const s = await startStack();
    try {
      const [gateway, controlPlane] = await Promise.all([s.gateway(), s.controlPlane(), s.worker()]);
      const cp = controlPlane.url;
      // An account made through the account API, funded by the operator.
      const post = (path: string, body: unknown, token?: string) =>
        json(`${cp}${path}`, {
          method: "POST",
          headers: {
            "content-type": "application/json",
            ...(token ? { authorization: `Bearer ${token}` } : {}),
          },
          ...(body === undefined ? {} : { body: JSON.stringify(body) }),
        });
      const account = { email: "fault@example.test", password: "Sup3rSecret!" };
      assert.equal((await post("/api/onboarding/signup", account)).status, 201);
      const token = (await post("/api/onboarding/login", account)).body.token as string;
      const partyId = (await post("/api/party/create", undefined, token)).body.partyId as string;
      const apiKey = (await post("/api/api-key/create", undefined, token)).body.key as string;
      await s.seedProvider();
      await s.operator.fundParty({ partyId, amount: FUNDED, ref: "fund" });

      const load = paidLoad(gateway.url, apiKey, { concurrency: 2 });
      await load.serves(50);
      s.pg.stop();
      const servedBefore = load.served();
      const outageEnds = Date.now() + 30_000;

      // Readiness and endpoints of each area answer 503 in their own format, no stack trace.
      await eventually(async () => (await json(`${cp}/readyz`)).status === 503, {
        what: "readiness to fail",
      });
      const balance = await json(`${cp}/api/balance`, { headers: { authorization: `Bearer ${token}` } });
      assert.equal(balance.status, 503, balance.text);
      assert.deepEqual(balance.body, { message: "Service temporarily unavailable" });
      const signup = await post("/user/signup", {
        email: "x@example.test",
        password: "Sup3rSecret",
        org: "X",
        scope: {},
      });
      assert.equal(signup.status, 503, signup.text);
      assert.deepEqual(signup.body, {
        error: "Service temporarily unavailable",
        code: "SERVICE_UNAVAILABLE",
      });

      // The outage under test lasts 30 s: the gateway must keep serving through all of it.
      await sleep(outageEnds - Date.now());
      const servedDuring = load.served() - servedBefore;
      await s.startPostgres();
      await eventually(async () => (await json(`${cp}/readyz`)).status === 200, {
        what: "the control plane to be ready again",
      });
      assert.equal(
        (await json(`${cp}/api/balance`, { headers: { authorization: `Bearer ${token}` } })).status,
        200,
      );
      const answers = await load.stop();
      assert.ok(
        servedDuring > 20,
        `the gateway kept serving paid requests: ${servedDuring} during the outage`,
      );
      assert.deepEqual([...answers.keys()], [200], `every paid request answered: ${load.describe()}`);

      const served = load.served();
      await eventually(
        async () =>
          (await readBalance(s.redis, s.keys, partyId)).reserved === 0n &&
          (await settledCount(s, partyId)) === served,
        { what: "the worker to catch up" },
      );
      await assertBooks(s, partyId, served);
    } finally {
      await s.close();
    }
  });

  test("the worker SIGKILLed between each step of a settlement pass: the next worker repairs everything", async () => {
    const s = await startStack();
    try {
      const { partyId, apiKey } = await s.seed();
      const gateway = await s.gateway();
      let served = 0;
      for (const step of SETTLEMENT_STEPS) {
        const load = paidLoad(gateway.url, apiKey, { concurrency: 2 });
        await load.serves(10);
        await load.stop();
        served += load.served();
        // The last step charges what Postgres holds as registered: drained without charging, as the
        // account API drains.
        if (step === "debited-in-postgres") await drainReservationLog(s, partyId);
        const paused = await s.pausingWorker(step);
        await waitForLine(paused, new RegExp(`^PAUSED ${step}$`));
        await kill(paused);
        // Killed after Redis debited and before Postgres recorded it, the books disagree until the next
        // pass repairs them (after the other steps, ledger check's own drain already agrees them).
        if (step === "settled-in-redis") assert.equal((await s.ledgerCheck()).code, 1, "before the repair");

        const worker = await s.worker();
        await eventually(
          async () => {
            const { reserved } = await readBalance(s.redis, s.keys, partyId);
            return reserved === 0n && (await settledCount(s, partyId)) === served;
          },
          { what: "the next worker to repair the pass" },
        );
        await kill(worker);
      }
      await assertBooks(s, partyId, served);
    } finally {
      await s.close();
    }
  });
});
