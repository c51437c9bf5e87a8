import type { BackgroundJob } from "../../background-job.ts";
import { startSettlementLoop } from "./loop.ts";

/** Settlement as the worker's job: the loop of loop.ts, started with the rest (docs/architecture.md §9). */
export function gatewaySettlementJobs(deps: Parameters<typeof startSettlementLoop>[0]): BackgroundJob[] {
  let loop: ReturnType<typeof startSettlementLoop> | undefined;
  return [
    {
      name: "gateway-settlement",
      async start() {
        loop = startSettlementLoop(deps);
      },
      isRunning: () => loop?.isRunning() ?? false,
      close: async () => loop?.close(),
    },
  ];
}
