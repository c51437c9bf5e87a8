import cluster, { type Worker } from "node:cluster";
import type { GatewayConfig } from "./config.ts";
import type { Logger } from "./log.ts";
import { joinCluster, METRICS_CONTENT_TYPE, serveMetrics } from "./metrics.ts";

/** What a gateway process started by the primary sends it once it listens. */
export interface ReadyMessage {
  ready: string;
}

/**
 * The primary of `GATEWAY_PROCESSES` > 1: forks the gateway processes, which share its listening port
 * (node:cluster hands each connection to one of them), and does nothing else. It prints `READY <url>`
 * once every process listens; a process that dies later is replaced; one that dies before it ever listened
 * stops them all (a start that fails once fails every time). SIGTERM or SIGINT drains every process (each
 * answers what it received, main.ts) and exits when the last has, 0 if each drained cleanly. With
 * GATEWAY_METRICS_PORT the primary serves the metrics, summed over its processes.
 */
export function runPrimary(config: Readonly<GatewayConfig>, logger: Logger): void {
  let stopping = false;
  let announced = false;
  let failed = false;
  const ready = new Set<number>();

  const stop = () => {
    if (stopping) return;
    stopping = true;
    logger.info({ processes: Object.keys(cluster.workers ?? {}).length }, "draining the gateway processes");
    for (const w of Object.values(cluster.workers ?? {})) w?.process.kill("SIGTERM");
    exitWhenAllGone();
  };
  const exitWhenAllGone = () => {
    if (Object.keys(cluster.workers ?? {}).length === 0) logger.flush(() => process.exit(failed ? 1 : 0));
  };

  const fork = () => {
    const worker: Worker = cluster.fork();
    worker.on("message", (m: Partial<ReadyMessage>) => {
      if (typeof m?.ready !== "string") return;
      ready.add(worker.id);
      if (!announced && ready.size === config.processes) {
        announced = true;
        process.stdout.write(`READY ${m.ready}\n`);
      }
    });
    worker.on("exit", (code, signal) => {
      const wasReady = ready.delete(worker.id);
      if (stopping) {
        if (code !== 0) failed = true;
        return exitWhenAllGone();
      }
      logger.error({ pid: worker.process.pid, code, signal }, "a gateway process died");
      if (wasReady) return void fork();
      failed = true;
      stop();
    });
  };

  for (let i = 0; i < config.processes; i++) fork();
  if (config.metrics)
    void serveMetrics({ ...config.metrics, render: joinCluster(), contentType: METRICS_CONTENT_TYPE }).then(
      ({ url }) => logger.info({ url }, "gateway metrics listening (the sum of every process)"),
      (err: unknown) => {
        logger.error({ err }, "the metrics endpoint could not listen");
        failed = true;
        stop();
      },
    );
  process.once("SIGTERM", stop);
  process.once("SIGINT", stop);
}
