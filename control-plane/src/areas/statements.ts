import type { QueueDeps } from "../background-job.ts";
import type { Core } from "../core.ts";
import { createHyperliquidClient } from "../features/hyperliquid-delegation/client.ts";
import { createHyperliquidRewards } from "../features/hyperliquid-delegation/rewards.ts";
import { createEthereumStatements } from "../features/statements/ethereum-repo.ts";
import { createHyperliquidStatements } from "../features/statements/hyperliquid-source.ts";
import { createStatementNotices, statementJobs } from "../features/statements/jobs.ts";
import { createStatementsRepo } from "../features/statements/repo.ts";
import { statementsArea } from "../features/statements/routes.ts";
import { createStatementsService } from "../features/statements/service.ts";
import { createUpstream } from "../http/upstream.ts";

/** Hourly: a month closes once a day, so the notice may be an hour late, never early. */
const NOTICE_EVERY_MS = 60 * 60 * 1000;

export function composeArea({ config, db, reads }: Core) {
  const hyperliquid = createHyperliquidRewards({
    client: createHyperliquidClient({
      baseUrl: config.hyperliquid.apiUrl,
      upstream: createUpstream({
        name: "Hyperliquid API",
        timeoutMs: config.hyperliquid.timeoutMs,
        maxBytes: config.nodeResponseMaxBytes,
      }),
    }),
  });
  const sources = [createEthereumStatements(reads), createHyperliquidStatements({ rewards: hyperliquid })];
  const repo = createStatementsRepo(db, reads);
  const service = createStatementsService({ sources, repo });
  const notices = createStatementNotices({ db, repo, sources });
  return {
    routes: [statementsArea({ service })],
    service,
    repo,
    notices,
    jobs: (q: QueueDeps) => statementJobs({ ...q, notices, everyMs: NOTICE_EVERY_MS }),
  };
}
