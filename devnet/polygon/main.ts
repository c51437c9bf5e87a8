import { BOR_BLOCKS_PER_CHECKPOINT } from "./chain.ts";
import { buildHistory, ROLES } from "./scenario.ts";

/**
 * Simulated Ethereum L1 with Polygon staking for `npm start`: PORT (default 8546, POLYGON_L1_RPC_URL's
 * default), HISTORY_DAYS (default 31) of checkpoints every 34 min built at start, then one checkpoint every
 * LIVE_CHECKPOINT_S (default 60) real seconds, paying for the Bor blocks of the time elapsed.
 */
const port = Number(process.env.PORT ?? 8546);
const days = Number(process.env.HISTORY_DAYS ?? 31);
const liveSeconds = Number(process.env.LIVE_CHECKPOINT_S ?? 60);
const started = Date.now();
const { devnet, history } = await buildHistory({ days, port });
process.stderr.write(
  `polygon devnet: ${history.checkpoints.length} checkpoints over ${days} days in ${Date.now() - started} ms; ` +
    `ValidatorShare of validator 18 ${devnet.validatorShare}; delegators ${ROLES.delegators.slice(0, 3).join(", ")}\n`,
);
process.stdout.write(`READY ${devnet.url}\n`);

const perSecond = Number(BOR_BLOCKS_PER_CHECKPOINT) / devnet.checkpointSeconds;
const timer = setInterval(() => {
  const at = Math.max(Math.floor(Date.now() / 1000), devnet.now() + 1);
  const borBlocks = BigInt(Math.max(1, Math.round((at - devnet.now()) * perSecond)));
  devnet.checkpoint({ at, borBlocks }).catch((err) => process.stderr.write(`checkpoint failed: ${err}\n`));
}, liveSeconds * 1000);
for (const signal of ["SIGTERM", "SIGINT"] as const) {
  process.once(signal, async () => {
    clearInterval(timer);
    await devnet.close();
    process.exit(0);
  });
}
