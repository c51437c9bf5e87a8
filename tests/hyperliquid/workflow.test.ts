import assert from "node:assert/strict";
import { after, before, describe, test } from "node:test";
import { DAY_MS, dailyReward, formatHype } from "../../devnet/hyperliquid/state.ts";
import {
  api,
  type DelegationStack,
  decodeUnsigned,
  type Network,
  signUnsigned,
  startDelegationStack,
} from "./setup.ts";

// The spec's workflow end to end, with ethers as the client, against one simulated node per chain.
for (const network of ["mainnet", "testnet"] as Network[]) {
  describe(`delegation workflow on ${network}`, () => {
    let s: DelegationStack;
    before(async () => {
      s = await startDelegationStack(network);
    });
    after(() => s.close());

    async function run(op: string, amount: number) {
      const prepared = await api(s).prepare(op, { amount, delegatorAddress: s.inScope.address });
      assert.equal(prepared.status, 200, JSON.stringify(prepared.body));
      const unsigned = decodeUnsigned(prepared.body.result.unsignedTransactionBase64);
      const sent = await api(s).broadcast(await signUnsigned(unsigned, s.inScope.wallet));
      assert.equal(sent.status, 200, JSON.stringify(sent.body));
      return { prepared: prepared.body.result, unsigned, sent: sent.body.result };
    }
    async function balance() {
      const res = await api(s).balance(s.inScope.address);
      assert.equal(res.status, 200, JSON.stringify(res.body));
      return res.body.result;
    }
    async function historyHashes() {
      const res = await fetch(`${s.devnet.url}/info`, {
        method: "POST",
        body: JSON.stringify({ type: "delegatorHistory", user: s.inScope.address }),
      });
      return ((await res.json()) as { hash: string }[]).map((e) => e.hash);
    }

    test("starting balance is the demo funding", async () => {
      const b = await balance();
      assert.deepEqual(
        { ...b, createdAt: undefined },
        {
          delegatorAddress: s.inScope.address,
          spotBalance: 1000,
          stakingBalance: 100,
          delegatedBalance: 0,
          pendingWithdrawal: 0,
          delegations: [],
          createdAt: undefined,
        },
      );
    });

    test("transfer (cDeposit, spot → staking) carries this chain's parameters", async () => {
      const { prepared, unsigned, sent } = await run("transfer", 10.5);
      assert.equal(prepared.amount, "10.5");
      assert.match(prepared.createdAt, /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/);
      assert.deepEqual(Object.keys(unsigned), ["action", "domain", "types", "primaryType", "nonce"]);
      assert.equal(unsigned.action.type, "cDeposit");
      assert.equal(unsigned.action.wei, 1_050_000_000);
      assert.equal(unsigned.action.hyperliquidChain, network === "mainnet" ? "Mainnet" : "Testnet");
      assert.equal(unsigned.domain.chainId, network === "mainnet" ? 42161 : 421614);
      assert.equal(unsigned.nonce, unsigned.action.nonce);
      assert.deepEqual(Object.keys(unsigned.types), ["HyperliquidTransaction:CDeposit"]);
      assert.equal(sent.status, "success");
      assert.equal(sent.transactionHash, (await historyHashes())[0]);
      const b = await balance();
      assert.equal(b.spotBalance, 989.5);
      assert.equal(b.stakingBalance, 110.5);
    });

    test("delegate (tokenDelegate) to the operator validator; locked for a day", async () => {
      const { unsigned, sent } = await run("delegate", 5);
      assert.equal(unsigned.action.validator, s.devnet.validators[0]);
      assert.equal(unsigned.action.isUndelegate, false);
      assert.equal(sent.transactionHash, (await historyHashes())[0]);
      const b = await balance();
      assert.equal(b.stakingBalance, 105.5);
      assert.equal(b.delegatedBalance, 5);
      assert.equal(b.delegations.length, 1);
      const [d] = b.delegations;
      assert.equal(d.validator, s.devnet.validators[0]);
      assert.equal(d.amount, 5);
      assert.equal(d.status, "Locked");
      assert.ok(Math.abs(d.lockedUntil - (s.devnet.now() + DAY_MS)) < 60_000);
    });

    test("undelegate is refused by the node while locked (4xx, its message) and works after the lock", async () => {
      const prepared = await api(s).prepare("undelegate", { amount: 2, delegatorAddress: s.inScope.address });
      const signed = await signUnsigned(
        decodeUnsigned(prepared.body.result.unsignedTransactionBase64),
        s.inScope.wallet,
      );
      const locked = await api(s).broadcast(signed);
      assert.equal(locked.status, 422);
      assert.equal(locked.body.code, "EXCHANGE_REJECTED");
      assert.match(locked.body.error, /locked until/);

      s.devnet.advanceTime(DAY_MS + 1000);
      const { unsigned, sent } = await run("undelegate", 2);
      assert.equal(unsigned.action.isUndelegate, true);
      assert.equal(sent.transactionHash, (await historyHashes())[0]);
      const b = await balance();
      // The day waited out paid a day's reward on the 5 delegated, compounded into the delegation.
      assert.equal(b.delegatedBalance, Number(formatHype(3n * 10n ** 8n + dailyReward(5n * 10n ** 8n))));
      assert.equal(b.stakingBalance, 107.5);
    });

    test("withdraw (cWithdraw, staking → spot) enters the 7-day queue, then lands in spot", async () => {
      const { unsigned, sent } = await run("withdraw", 7.25);
      assert.equal(unsigned.action.type, "cWithdraw");
      assert.match(sent.transactionHash, /^0x[0-9a-f]{64}$/);
      let b = await balance();
      assert.equal(b.stakingBalance, 100.25);
      assert.equal(b.pendingWithdrawal, 7.25);
      s.devnet.advanceTime(7 * DAY_MS);
      b = await balance();
      assert.equal(b.pendingWithdrawal, 0);
      assert.equal(b.spotBalance, 996.75);
    });
  });
}
