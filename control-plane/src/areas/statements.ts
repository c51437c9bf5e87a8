import type { QueueDeps } from "../background-job.ts";
import type { Core } from "../core.ts";
import { createHyperliquidClient } from "../features/hyperliquid-delegation/client.ts";
import { createHyperliquidRewards } from "../features/hyperliquid-delegation/rewards.ts";
import { createPolygonStatementReads } from "../features/polygon-rewards/statement-reads.ts";
import { createSolanaStatementReads } from "../features/solana-stake/statement-reads.ts";
import { createEthereumStatements } from "../features/statements/ethereum-repo.ts";
import { createHyperliquidStatements } from "../features/statements/hyperliquid-source.ts";
import { createStatementNotices, statementJobs } from "../features/statements/jobs.ts";
import { createPolygonStatements } from "../features/statements/polygon-source.ts";
import { createStatementsRepo } from "../features/statements/repo.ts";
import { statementsArea } from "../features/statements/routes.ts";
import { createStatementsService } from "../features/statements/service.ts";
import { createSolanaStatements } from "../features/statements/solana-source.ts";
import { createSuiStatements } from "../features/statements/sui-source.ts";
import { createSuiRepo } from "../features/sui-rewards/repo.ts";
import { createSuiStatementReads } from "../features/sui-rewards/statement-reads.ts";
import { createUpstream } from "../http/upstream.ts";
import { polygonReads } from "./polygon-rewards.ts";
import { solanaReads } from "./solana-stake.ts";

/** Hourly: a month closes once a day, so the notice may be an hour late, never early. */
const NOTICE_EVERY_MS = 60 * 60 * 1000;

export function composeArea(core: Core) {
  const { config, db, reads } = core;
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
  // Each chain's rows come through its area's read port, over that area's node and tables.
  const sources = [
    createEthereumStatements(reads),
    createHyperliquidStatements({ rewards: hyperliquid }),
    createSolanaStatements({ reads: createSolanaStatementReads(solanaReads(core)) }),
    createPolygonStatements({
      reads: createPolygonStatementReads({ ...polygonReads(core), depth: config.polygon.snapshotDepth }),
    }),
    createSuiStatements({
      reads: createSuiStatementReads({ repo: createSuiRepo(reads), validators: config.sui.validators }),
    }),
  ];
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
