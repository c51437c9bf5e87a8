import { SolanaAnswers, type SolanaRpc } from "./client.ts";
import type { SolanaRewardsRepo } from "./repo.ts";

/** Nominal slot time used only to estimate which epochs a time span touches; exact bounds come from block times. */
const SLOT_SECONDS = 0.4;

export interface EpochClock {
  current: number;
  slotsPerEpoch: number;
  /** Nominal epoch length in seconds (slotsPerEpoch × 400 ms). */
  nominalSeconds: number;
  /** Start time (Unix seconds) of each epoch in [from, to]; cached in Postgres once the epoch has begun. */
  starts(from: number, to: number): Promise<Map<number, number>>;
}

export async function epochClock(rpc: SolanaRpc, repo: SolanaRewardsRepo): Promise<EpochClock> {
  const [info, schedule] = await Promise.all([
    rpc.call("getEpochInfo", [{ commitment: "finalized" }], SolanaAnswers.epochInfo),
    rpc.call("getEpochSchedule", [], SolanaAnswers.epochSchedule),
  ]);
  const firstSlot = (e: number) =>
    BigInt(schedule.firstNormalSlot) + BigInt(e - schedule.firstNormalEpoch) * BigInt(schedule.slotsPerEpoch);
  return {
    current: info.epoch,
    slotsPerEpoch: schedule.slotsPerEpoch,
    nominalSeconds: schedule.slotsPerEpoch * SLOT_SECONDS,
    async starts(from, to) {
      const hi = Math.min(to, info.epoch);
      const cached = await repo.epochStarts(from, hi);
      const fresh: { epoch: number; firstSlot: bigint; startTime: bigint }[] = [];
      for (let e = Math.max(from, schedule.firstNormalEpoch); e <= hi; e++) {
        if (cached.has(e)) continue;
        // A skipped first slot has no block time; the next produced slot stands in for it.
        for (let s = firstSlot(e), tries = 0; tries < 10; s++, tries++) {
          const t = await rpc.call("getBlockTime", [Number(s)], SolanaAnswers.blockTime).catch(() => null);
          if (t !== null) {
            fresh.push({ epoch: e, firstSlot: firstSlot(e), startTime: BigInt(t) });
            cached.set(e, BigInt(t));
            break;
          }
        }
      }
      await repo.insertEpochStarts(fresh);
      return new Map([...cached].map(([e, t]) => [e, Number(t)]));
    },
  };
}
