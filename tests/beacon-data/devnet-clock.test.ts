import assert from "node:assert/strict";
import { test } from "node:test";
import { loadLodestar } from "../beacon-consensus/load.ts";
import { eventually } from "../helpers/eventually.ts";

const { startConsensusDevnet } = await loadLodestar();

// A real chain's slot n is at genesis + n × SECONDS_PER_SLOT whatever its nodes do: a slot no block was
// made for in time is empty, and the head never runs behind the clock. The devnet of `npm start` must too,
// or every time the platform reads from it (deposit block times beside wall-clock steps) runs backwards.
test("the devnet keeps real time: slots it could not make in time are skipped, never made late", async (t) => {
  const devnet = await startConsensusDevnet({ secondsPerSlot: 1, validators: 8, realTime: true });
  t.after(() => devnet.close());
  const clock = () => Date.now() / 1000 - devnet.slotTime(0);
  await eventually(() => devnet.chain.head >= 1, { what: "the first slot" });

  // The node busy for 3.5 slots (the event loop held, as a long pause or an overloaded machine would).
  const busyUntil = Date.now() + 3_500;
  while (Date.now() < busyUntil);
  const late = devnet.chain.head;
  await eventually(() => devnet.chain.head > late, { what: "a slot after the pause" });
  const head = devnet.chain.head;
  const now = clock();
  assert.ok(head >= Math.floor(now) - 1, `head ${head} at clock slot ${now.toFixed(2)}: the chain runs late`);
  assert.ok(head <= now, `head ${head} at clock slot ${now.toFixed(2)}: the chain runs ahead`);
  const skipped = Array.from({ length: head - late - 1 }, (_, i) => late + 1 + i);
  assert.ok(skipped.length >= 2, `slots ${late}→${head}: the missed ones are skipped`);
  for (const s of skipped) assert.equal(devnet.chain.blockAt(s), undefined, `slot ${s} has no block`);

  // Every later slot at its time, not before.
  for (let i = 0; i < 2; i++) {
    const from = devnet.chain.head;
    await eventually(() => devnet.chain.head > from, { what: `slot ${from + 1}` });
    const at = clock();
    assert.ok(
      devnet.chain.head <= at && devnet.chain.head >= Math.floor(at) - 1,
      `${devnet.chain.head} at ${at}`,
    );
  }
});
