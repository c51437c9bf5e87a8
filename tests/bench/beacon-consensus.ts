/**
 * Benchmark (not part of `npm test`): `npm run bench:beacon-consensus`. The beacon devnet's chain made by
 * Lodestar's state transition (devnet/beacon/consensus) with VALIDATORS validators (default 64, 4 offline)
 * at SECONDS_PER_SLOT (default 2) in real time for SLOTS slots (default 64, 8 epochs), anvil as its execution
 * layer unless EXECUTION=0: the devnet's CPU (this process: state transition, BLS signing and verification,
 * the Beacon API idle) per slot and as a share of one core, anvil's beside it, the empty slots (an offline
 * or slashed proposer's) and how many of them the devnet left empty because it could not make them in time.
 */
import "../../devnet/beacon/consensus/preset.ts";
import { readFileSync } from "node:fs";
import { startConsensusDevnet } from "../../devnet/beacon/consensus/server.ts";

const VALIDATORS = Number(process.env.VALIDATORS ?? 64);
const SLOTS = Number(process.env.SLOTS ?? 64);
const SECONDS = Number(process.env.SECONDS_PER_SLOT ?? 2);
const TICK = 100; // clock ticks a second (Linux USER_HZ)

/** CPU seconds of a process (user + system) from /proc. */
const cpuOf = (pid: number) => {
  const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1]?.split(" ") ?? [];
  return (Number(fields[11]) + Number(fields[12])) / TICK;
};
const childPids = () =>
  readFileSync(`/proc/${process.pid}/task/${process.pid}/children`, "utf8")
    .trim()
    .split(/\s+/)
    .filter(Boolean)
    .map(Number);

const devnet = await startConsensusDevnet({
  validators: VALIDATORS,
  offline: [VALIDATORS - 4, VALIDATORS - 3, VALIDATORS - 2, VALIDATORS - 1],
  secondsPerSlot: SECONDS,
  execution: process.env.EXECUTION !== "0",
  realTime: true,
});
const start = devnet.chain.head;
const selfBefore = process.cpuUsage();
const children = childPids();
const childBefore = children.map(cpuOf);
const t0 = Date.now();
while (devnet.chain.head < start + SLOTS) await new Promise((r) => setTimeout(r, 200));
const wall = (Date.now() - t0) / 1000;
const self = process.cpuUsage(selfBefore);
const selfCpu = (self.user + self.system) / 1e6;
const childCpu = children.reduce((sum, pid, i) => sum + cpuOf(pid) - (childBefore[i] ?? 0), 0);
let blocks = 0;
for (let s = start + 1; s <= devnet.chain.head; s++) if (devnet.chain.blockAt(s)) blocks++;
const offlineSlots = SLOTS - blocks;
const head = devnet.chain.headState();
console.log(
  JSON.stringify(
    {
      validators: VALIDATORS,
      secondsPerSlot: SECONDS,
      slots: SLOTS,
      wallSeconds: wall,
      devnetCpuMsPerSlot: Math.round((selfCpu * 1000) / SLOTS),
      devnetCoreShare: Number((selfCpu / wall).toFixed(3)),
      anvilCpuMsPerSlot: Math.round((childCpu * 1000) / SLOTS),
      blocks,
      emptySlots: offlineSlots,
      lateSlots: devnet.chain.lateSlots,
      finalizedEpoch: head.finalizedCheckpoint.epoch,
    },
    null,
    2,
  ),
);
await devnet.close();
