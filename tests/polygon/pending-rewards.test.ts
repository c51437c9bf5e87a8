import assert from "node:assert/strict";
import { after, before, describe, it } from "node:test";
import { formatUnits } from "@stake/db/units";
import request from "supertest";
import type { Address } from "viem";
import { ROLES } from "../../devnet/polygon/scenario.ts";
import { type PolygonEnv, reader, startPolygonEnv } from "./setup.ts";

const RP = 10n ** 25n;
const [d0, d1, d2, d3] = ROLES.delegators;

describe("Polygon pending rewards on a real EVM", () => {
  let env: PolygonEnv;
  let read: ReturnType<typeof reader>;
  let vs: Address;
  const pending = async (address: string) => {
    const res = await request(env.h.app)
      .post("/api/pending-rewards")
      .set("x-api-key", env.key)
      .send({ stake_account_address: address });
    assert.equal(res.status, 200, JSON.stringify(res.body));
    assert.equal(res.body.code, 200);
    return res.body.data as { pending_rewards: number; pending_rewards_wei: string };
  };
  /** The contract's formula from its storage, in the test: shares × (RPS − initalRPS[user]) / 1e25. */
  const expected = async (user: Address) => {
    const [shares, total, stored, initial, delegators] = await Promise.all([
      read(vs, "balanceOf", [user]) as Promise<bigint>,
      read(vs, "totalSupply") as Promise<bigint>,
      read(vs, "rewardPerShare") as Promise<bigint>,
      read(vs, "initalRewardPerShare", [user]) as Promise<bigint>,
      read(env.devnet.stakeManager, "delegatorsReward", [env.devnet.operatorId]) as Promise<bigint>,
    ]);
    const rps = total === 0n || delegators === 0n ? stored : stored + (delegators * RP) / total;
    return shares === 0n ? 0n : ((rps - initial) * shares) / RP;
  };

  before(async () => {
    env = await startPolygonEnv();
    read = reader(env);
    vs = env.devnet.validatorShare;
  });
  after(async () => env?.close());

  it("equals the contract's arithmetic for every delegator after a month of checkpoints, claims and restakes", async () => {
    for (const user of [d0, d1, d2]) {
      const got = await pending(user);
      const want = await expected(user);
      assert.ok(want > 0n, `${user} has rewards`);
      assert.equal(got.pending_rewards_wei, want.toString());
      assert.equal(got.pending_rewards, Number(formatUnits(want, 18)));
    }
    // A delegator of another validator only, and an address that never delegated: nothing here.
    assert.equal((await pending(d3)).pending_rewards_wei, "0");
    assert.equal((await pending(`0x${"ab".repeat(20)}`)).pending_rewards, 0);
  });

  it("a checkpoint adds what StakeManager's split gives, net of commission; a skipped one adds nothing", async () => {
    const id = env.devnet.operatorId;
    const sm = env.devnet.stakeManager;
    const before = BigInt((await pending(d1)).pending_rewards_wei);
    const [reward, total, own, delegated, v, shares, supply] = await Promise.all([
      read(sm, "CHECKPOINT_REWARD") as Promise<bigint>,
      read(sm, "currentValidatorSetTotalStake") as Promise<bigint>,
      read(sm, "validatorStake", [id]) as Promise<bigint>,
      read(sm, "delegatedAmount", [id]) as Promise<bigint>,
      read(sm, "validators", [id]) as Promise<readonly unknown[]>,
      read(vs, "balanceOf", [d1]) as Promise<bigint>,
      read(vs, "totalSupply") as Promise<bigint>,
    ]);
    const commission = v[8] as bigint;
    assert.equal(commission, 10n, "the scenario raised the commission to 10 %");
    // Every validator signs (signed power = total stake): the whole CHECKPOINT_REWARD, 10 % to the proposer.
    const ckp = reward;
    const perStake = ((ckp - (ckp * 10n) / 100n) * RP) / total;
    const combined = own + delegated;
    const eligible = (perStake * combined) / RP;
    let valReward = (own * eligible) / combined;
    valReward += ((eligible - valReward) * commission) / 100n;
    const delegatorsPart = eligible - valReward;
    const pendingDelegators = (await read(sm, "delegatorsReward", [id])) as bigint;
    await env.devnet.checkpoint();
    assert.equal(
      (await read(sm, "delegatorsReward", [id])) as bigint,
      pendingDelegators + delegatorsPart,
      "delegatorsReward grew by the delegators' part",
    );
    const after = BigInt((await pending(d1)).pending_rewards_wei);
    // The share of the delegators' part one delegator holds, with the contract's two floors.
    const stored = (await read(vs, "rewardPerShare")) as bigint;
    const initial = (await read(vs, "initalRewardPerShare", [d1])) as bigint;
    const rpsBefore = stored + (pendingDelegators * RP) / supply;
    const rpsAfter = stored + ((pendingDelegators + delegatorsPart) * RP) / supply;
    assert.equal(before, ((rpsBefore - initial) * shares) / RP);
    assert.equal(after, ((rpsAfter - initial) * shares) / RP);
    assert.ok(after > before);

    await env.devnet.checkpoint({ signers: [16n, 17n, 19n] });
    assert.equal(BigInt((await pending(d1)).pending_rewards_wei), after, "a missed checkpoint pays nothing");
  });

  it("a claim pays exactly the pending amount and resets it; a restake turns it into stake", async () => {
    const owed = BigInt((await pending(d0)).pending_rewards_wei);
    const balance = await env.devnet.polBalance(d0);
    await env.devnet.claim(d0);
    assert.equal(await env.devnet.polBalance(d0), balance + owed);
    assert.equal((await pending(d0)).pending_rewards_wei, "0");

    const [stakeBefore] = (await read(vs, "getTotalStake", [d2])) as readonly [bigint, bigint];
    const owed2 = BigInt((await pending(d2)).pending_rewards_wei);
    const balance2 = await env.devnet.polBalance(d2);
    await env.devnet.restake(d2);
    const [stakeAfter] = (await read(vs, "getTotalStake", [d2])) as readonly [bigint, bigint];
    const change = (await env.devnet.polBalance(d2)) - balance2;
    // The rewards became stake, except the change that did not buy a whole share (paid out).
    assert.ok(stakeAfter - stakeBefore + change >= owed2 - 1n && stakeAfter - stakeBefore + change <= owed2);
    assert.equal((await pending(d2)).pending_rewards_wei, "0");

    await env.devnet.checkpoint();
    for (const user of [d0, d1, d2]) {
      assert.equal((await pending(user)).pending_rewards_wei, (await expected(user)).toString());
    }
    assert.ok(BigInt((await pending(d0)).pending_rewards_wei) > 0n);
  });

  it("accepts the address in any case", async () => {
    const lower = await pending(d1);
    const upper = await pending(`0x${d1.slice(2).toUpperCase()}`);
    assert.deepEqual(upper, lower);
  });
});
