import type { Db } from "@stake/db/client";
import { type BackgroundJob, type QueueDeps, repeatingJob } from "../../background-job.ts";
import { emitEvents } from "../../platform/outbox.ts";
import { QUEUES } from "../../queues.ts";
import type { StatementsRepo } from "./repo.ts";
import { monthOf } from "./service.ts";
import type { StatementSource } from "./source.ts";

/** The month before `now`'s, YYYY-MM. */
export function previousMonth(now: number): string {
  const d = new Date(now);
  const y = d.getUTCMonth() === 0 ? d.getUTCFullYear() - 1 : d.getUTCFullYear();
  const m = d.getUTCMonth() === 0 ? 12 : d.getUTCMonth();
  return `${y}-${String(m).padStart(2, "0")}`;
}

/**
 * `statement.ready`, once per organisation, chain and month, when the month closes (its source says no row
 * can change any more) and the organisation has rows in it: the notice row and the event commit together
 * through the webhook outbox, so a pass that fails half-way tells nobody twice. A chain whose node fails
 * is named in the pass's result and retried next pass; the other chains are told all the same.
 */
export function createStatementNotices(deps: {
  db: Db;
  repo: StatementsRepo;
  sources: readonly StatementSource[];
  now?: () => number;
}) {
  const now = deps.now ?? Date.now;

  async function tell(s: StatementSource, month: string): Promise<number> {
    const m = monthOf(month);
    const done = await deps.repo.noticedOrganisations(s.chain, month);
    let closed: boolean | undefined;
    let told = 0;
    for (const org of await deps.repo.approvedOrganisations()) {
      if (done.has(org.id)) continue;
      // Totals first: an organisation with nothing on a chain costs that chain's node nothing.
      const t = await s.totals(org, m);
      if (t.rows === 0) continue;
      closed ??= await s.closed(m, now());
      if (!closed) return told;
      await deps.db.transaction(async (tx) => {
        if (!(await deps.repo.claimNotice(tx, org.id, s.chain, month))) return;
        await emitEvents(tx, [
          {
            owner: { kind: "organisation", id: org.id },
            type: "statement.ready",
            data: {
              chain: s.chain,
              month,
              rows: t.rows,
              baseUnit: s.baseUnit,
              earned: t.earned.toString(),
              withdrawn: t.withdrawn.toString(),
            },
          },
        ]);
        told++;
      });
    }
    return told;
  }

  return {
    async runOnce(month = previousMonth(now())) {
      let told = 0;
      const failed: string[] = [];
      for (const s of deps.sources) {
        try {
          told += await tell(s, month);
        } catch {
          failed.push(s.chain);
        }
      }
      return failed.length ? { month, told, failed } : { month, told };
    },
  };
}

export function statementJobs(
  deps: QueueDeps & { notices: ReturnType<typeof createStatementNotices>; everyMs: number },
): BackgroundJob[] {
  return [
    repeatingJob({
      ...deps,
      name: QUEUES.statementNotices.name,
      everyMs: deps.everyMs,
      run: () => deps.notices.runOnce(),
    }),
  ];
}
