import { OPERATOR_ID, type PolygonDevnet, ROLES, startPolygonDevnet } from "./chain.ts";

const DAY = 86_400;

/** What the history holds, for the tests to check against (block numbers of the notable events). */
export interface History {
  checkpoints: { block: bigint; timestamp: number; operatorSigned: boolean }[];
}

/**
 * `days` of staking history ending now: checkpoints every `checkpointSeconds`, the operator (validator 18)
 * missing one checkpoint early on and one on the last day, its commission raised from 5 % to 10 % on day
 * `days − 4`, and delegators joining, claiming and restaking in between. The operator's delegators are
 * ROLES.delegators[0..2]; [3] delegates to validator 17.
 */
export async function buildHistory(opts: {
  days: number;
  checkpointSeconds?: number;
  port?: number;
  pruneHistory?: number;
}): Promise<{ devnet: PolygonDevnet; history: History }> {
  const end = Math.floor(Date.now() / 1000);
  const start = end - opts.days * DAY - 3600;
  const devnet = await startPolygonDevnet({ ...opts, genesis: start });
  const step = devnet.checkpointSeconds;
  const [d0, d1, d2, d3] = ROLES.delegators;
  await devnet.delegate(d0, "300000");
  await devnet.delegate(d1, "200000");
  await devnet.delegate(d3, "400000", undefined, devnet.otherShare);
  const events = new Map<number, () => Promise<unknown>>([
    [Math.floor(opts.days * 0.2), () => devnet.claim(d0)],
    [Math.floor(opts.days * 0.35), () => devnet.delegate(d2, "100000")],
    [Math.floor(opts.days * 0.5), () => devnet.restake(d1)],
    [Math.floor(opts.days * 0.8), () => devnet.delegate(d0, "50000")],
    [opts.days - 4, () => devnet.setCommission(10n)],
  ]);
  const history: History = { checkpoints: [] };
  const total = Math.floor((end - devnet.now()) / step);
  for (let i = 1; i <= total; i++) {
    const at = end - (total - i) * step;
    const day = Math.floor((at - start) / DAY);
    const event = events.get(day);
    if (event) {
      events.delete(day);
      await event();
    }
    // The operator misses the 5th checkpoint and the one before the last.
    const operatorSigned = i !== 5 && i !== total - 1;
    const r = await devnet.checkpoint({
      at,
      signers: operatorSigned ? undefined : [16n, 17n, 19n],
    });
    history.checkpoints.push({ block: r.blockNumber, timestamp: devnet.now(), operatorSigned });
  }
  return { devnet, history };
}

export { OPERATOR_ID, ROLES };
