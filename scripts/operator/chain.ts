import {
  CHAIN_AREA_NAMES,
  type ChainArea,
  describeIdentity,
  reindexArea,
  reindexPlan,
} from "@stake/control-plane/operator";
import { type Command, requirePositional, UsageError } from "./context.ts";

/**
 * Chain followers (docs/architecture.md §13, "Chain identity"): re-index one area against the chain its
 * node serves now. The area's indexed chain data and its recorded identity go; the worker's next pass
 * records the node's chain and indexes it from the start.
 */
export const chainCommands: Record<string, Command> = {
  "chain reindex": {
    usage: `chain reindex <${CHAIN_AREA_NAMES.join("|")}> [--dry-run]`,
    summary: "delete an area's indexed chain data so the worker indexes the chain its node serves now",
    booleanFlags: ["dry-run"],
    async run(ctx, args) {
      const area = requirePositional(args, 0, "area");
      if (!(CHAIN_AREA_NAMES as string[]).includes(area))
        throw new UsageError(`unknown area ${area}; one of ${CHAIN_AREA_NAMES.join(", ")}`);
      const plan = await reindexPlan(ctx.db, area as ChainArea);
      const rows = Object.entries(plan.deletes).map(([t, n]) => `${t} ${n}`);
      const indexed = plan.recorded ? describeIdentity(plan.recorded) : "none recorded";
      const what = `${area} (indexed chain: ${indexed}): ${rows.join(", ")}; keeps ${plan.keeps}`;
      if (args.flags["dry-run"]) return { data: { ...plan, dryRun: true }, text: `would delete ${what}` };
      await reindexArea(ctx.db, area as ChainArea);
      return {
        data: { ...plan, dryRun: false },
        text: `deleted ${what}; the worker's next pass indexes the chain the node serves`,
      };
    },
  },
};
