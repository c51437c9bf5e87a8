import assert from "node:assert/strict";
import { after, before, test } from "node:test";
import {
  actionDigest,
  buildCDeposit,
  buildCWithdraw,
  buildTokenDelegate,
  CHAIN_PARAMS,
  signDigest,
  type UnsignedTransaction,
} from "../../control-plane/src/features/hyperliquid-delegation/builder.ts";
import { type HyperliquidDevnet, startHyperliquidDevnet } from "../../devnet/hyperliquid/server.ts";
import { DAY_MS, dailyReward, formatHype } from "../../devnet/hyperliquid/state.ts";

// The node recovers with ethers; signing here with the control plane's builder (viem digest, noble signature)
// cross-checks the two.
let dn: HyperliquidDevnet;
before(async () => {
  dn = await startHyperliquidDevnet({ chain: "Testnet" });
});
after(() => dn.close());

const post = async (path: string, body: unknown) => {
  const res = await fetch(`${dn.url}${path}`, { method: "POST", body: JSON.stringify(body) });
  return res.status === 200 ? res.json() : { http: res.status };
};
const submit = (tx: UnsignedTransaction, key: string) =>
  post("/exchange", {
    action: tx.action,
    nonce: tx.nonce,
    signature: signDigest(actionDigest(tx.action), Buffer.from(key.slice(2), "hex")),
  });

test("lock, withdrawal queue, replay and wrong chain behave like Hyperliquid", async () => {
  const w = dn.wallets[0];
  assert.ok(w);
  const chain = CHAIN_PARAMS.testnet;
  const validator = dn.validators[0];
  let nonce = dn.now();
  const delegate = buildTokenDelegate({
    chain,
    validator,
    wei: 5n * 10n ** 8n,
    isUndelegate: false,
    nonce: ++nonce,
  });
  assert.deepEqual(await submit(delegate, w.privateKey), { status: "ok", response: { type: "default" } });
  assert.deepEqual(await submit(delegate, w.privateKey), {
    status: "err",
    response: "Invalid nonce: duplicate nonce",
  });

  const undelegate = (n: number) =>
    buildTokenDelegate({ chain, validator, wei: 10n ** 8n, isUndelegate: true, nonce: n });
  const locked = (await submit(undelegate(++nonce), w.privateKey)) as { status: string; response: string };
  assert.equal(locked.status, "err");
  assert.match(locked.response, /locked until/);
  dn.advanceTime(DAY_MS + 1);
  assert.equal(((await submit(undelegate(++nonce), w.privateKey)) as { status: string }).status, "ok");

  assert.equal(
    (
      (await submit(buildCWithdraw({ chain, wei: 2n * 10n ** 8n, nonce: ++nonce }), w.privateKey)) as {
        status: string;
      }
    ).status,
    "ok",
  );
  assert.deepEqual(await post("/info", { type: "delegatorSummary", user: w.address }), {
    // The lock's day paid one day's reward on the 5 delegated, compounded into the delegation.
    delegated: formatHype(4n * 10n ** 8n + dailyReward(5n * 10n ** 8n)),
    undelegated: "94.0",
    totalPendingWithdrawal: "2.0",
    nPendingWithdrawals: 1,
  });
  dn.advanceTime(7 * DAY_MS);
  const spot = (await post("/info", { type: "spotClearinghouseState", user: w.address })) as {
    balances: { coin: string; total: string }[];
  };
  assert.equal(spot.balances.find((b) => b.coin === "HYPE")?.total, "1002.0");
  const history = (await post("/info", { type: "delegatorHistory", user: w.address })) as { delta: object }[];
  assert.deepEqual(history[0]?.delta, { withdrawal: { amount: "2.0", phase: "finalized" } });

  // A Mainnet action on this Testnet node recovers some other address.
  const wrong = buildCDeposit({ chain: CHAIN_PARAMS.mainnet, wei: 10n ** 8n, nonce: ++nonce });
  const res = (await submit(wrong, w.privateKey)) as { status: string; response: string };
  assert.equal(res.status, "err");
  assert.match(res.response, /^User or API Wallet 0x[0-9a-f]{40} does not exist\.$/);
  assert.ok(!res.response.includes(w.address));
});
