import { listAudit } from "@stake/control-plane/operator";
import { type Command, flag, UsageError } from "./context.ts";

/** `--since`: an ISO date or time, or a span back from now (`90m`, `24h`, `7d`). */
function since(value: string | undefined): Date | undefined {
  if (value === undefined) return undefined;
  const span = /^(\d+)([mhd])$/.exec(value);
  if (span) {
    const unit = { m: 60_000, h: 3_600_000, d: 86_400_000 }[span[2] as "m" | "h" | "d"];
    return new Date(Date.now() - Number(span[1]) * unit);
  }
  const at = new Date(value);
  if (!/^\d{4}-\d{2}-\d{2}/.test(value) || Number.isNaN(at.getTime()))
    throw new UsageError("--since takes an ISO date or time (2026-11-26, 2026-11-26T12:00Z) or 90m, 24h, 7d");
  return at;
}

/** The audit log (control-plane/src/platform/audit.ts): who changed keys, funding, the coin rate, providers, organisations. */
export const auditCommands: Record<string, Command> = {
  "audit list": {
    usage: "audit list [--since <iso|24h|7d>] [--target <id>] [--limit <n>]",
    summary: "audited changes, newest first (default 100)",
    valueFlags: ["since", "target", "limit"],
    async run(ctx, args) {
      const limitText = flag(args, "limit") ?? "100";
      const limit = Number(limitText);
      if (!/^\d+$/.test(limitText) || limit < 1 || limit > 10_000)
        throw new UsageError("--limit takes a whole number from 1 to 10000");
      const target = flag(args, "target");
      const from = since(flag(args, "since"));
      const rows = await listAudit(ctx.db, {
        limit,
        ...(target ? { target } : {}),
        ...(from ? { since: from } : {}),
      });
      const data = rows.map((r) => ({
        id: r.id.toString(),
        at: r.at.toISOString(),
        actor: r.actorId ? `${r.actorKind}:${r.actorId}` : r.actorKind,
        action: r.action,
        target: r.target,
        before: r.before,
        after: r.after,
      }));
      const change = (r: (typeof data)[number]) =>
        [r.before !== null ? JSON.stringify(r.before) : "", r.after !== null ? JSON.stringify(r.after) : ""]
          .filter(Boolean)
          .join(" → ");
      const text = data.length
        ? data.map((r) => `${r.at}  ${r.actor}  ${r.action}  ${r.target}  ${change(r)}`).join("\n")
        : "no audit entries";
      return { data, text };
    },
  },
};
