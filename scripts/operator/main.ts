import { parseArgs } from "node:util";
import { loadOrExit } from "@stake/db/env";
import { withDeploymentEnv } from "../lib/deployment-env.ts";
import { accountCommands } from "./accounts.ts";
import { auditCommands } from "./audit.ts";
import { beaconCommands } from "./beacon.ts";
import { chainCommands } from "./chain.ts";
import { type Command, checkArgs, createOperatorContext, loadOperatorConfig, UsageError } from "./context.ts";
import { gatewayCommands } from "./gateway.ts";
import { gatewayReadCommands } from "./gateway-reads.ts";
import { ledgerCommands } from "./ledger.ts";
import { priceCommands } from "./prices.ts";

/**
 * `npm run operator -- <group> <verb> [args] [--json]`. Each area adds a `Record<string, Command>` here;
 * a command's key is its two-word name.
 */
const COMMANDS: Record<string, Command> = {
  ...accountCommands,
  ...gatewayCommands,
  ...gatewayReadCommands,
  ...ledgerCommands,
  ...auditCommands,
  ...beaconCommands,
  ...priceCommands,
  ...chainCommands,
};

function help(): string {
  const rows = Object.values(COMMANDS).map((c) => `  ${c.usage.padEnd(56)} ${c.summary}`);
  return `usage: npm run operator -- <command> [--json]\n\n${rows.join("\n")}\n\nDATABASE_URL and REDIS_URL select the deployment (default: the one npm start runs, from .data/env).`;
}

/**
 * One line for a deployment that does not answer (instead of a driver's stack or "Failed query: …"): which
 * service, where, and where that address came from.
 */
function unreachable(err: unknown, c: { databaseUrl: string; redisUrl: string }, source: string | null) {
  const codes = new Set(["ECONNREFUSED", "ENOTFOUND", "EHOSTUNREACH", "ETIMEDOUT", "ECONNRESET"]);
  for (
    let e = err as { code?: string; port?: number; cause?: unknown } | undefined;
    e;
    e = e.cause as typeof e
  ) {
    if (!e.code || !codes.has(e.code)) continue;
    const redis = e.port !== undefined && String(e.port) === (new URL(c.redisUrl).port || "6379");
    const url = new URL(redis ? c.redisUrl : c.databaseUrl);
    url.password = url.password ? "***" : "";
    const from = source
      ? `from ${source}, written by npm start`
      : "DATABASE_URL / REDIS_URL or their defaults";
    return `cannot connect to ${redis ? "Redis" : "Postgres"} at ${url} (${e.code}; ${from}): is it running?`;
  }
  return undefined;
}

const valueFlags = new Set(Object.values(COMMANDS).flatMap((c) => c.valueFlags ?? []));
const { positionals, values } = parseArgs({
  args: process.argv.slice(2),
  allowPositionals: true,
  strict: false,
  options: Object.fromEntries([...valueFlags].map((f) => [f, { type: "string" as const }])),
});
// From argv itself: a bare value flag before it (`--user --json`) would take it as its value.
const json = process.argv.slice(2).includes("--json");
// Commands are one or two words ("fund", "providers add"); the longer match wins.
const words = COMMANDS[positionals.slice(0, 2).join(" ")] ? 2 : 1;
const command = COMMANDS[positionals.slice(0, words).join(" ")];
if (values.help || positionals.length === 0) {
  console.log(help());
  process.exit(values.help ? 0 : 2);
}
if (!command) {
  // A misspelt command is named, not answered with the whole help text.
  const given = positionals.slice(0, 2).join(" ");
  const group = Object.keys(COMMANDS).filter((k) => k.split(" ")[0] === positionals[0]);
  const hint = group.length
    ? `; "${positionals[0]}" takes: ${group.join(", ")}`
    : "; --help lists the commands";
  const message = `unknown command: ${given}${hint}`;
  if (json) console.log(JSON.stringify({ error: message }));
  else console.error(`error: ${message}`);
  process.exit(2);
}

const deployment = withDeploymentEnv(process.env);
const config = loadOrExit(() => loadOperatorConfig(deployment.env));
const { ctx, close } = createOperatorContext(config, json);
let code = 0;
try {
  const flags = Object.fromEntries(
    Object.entries(values).map(([k, v]) => [k, Array.isArray(v) ? v.at(-1) : v]),
  );
  const args = { positionals: positionals.slice(words), flags };
  checkArgs(command, args);
  const result = await command.run(ctx, args);
  console.log(json ? JSON.stringify(result.data, null, 2) : result.text);
  code = result.exitCode ?? 0;
} catch (err) {
  code = err instanceof UsageError ? 2 : 1;
  const message =
    unreachable(err, config, deployment.source) ?? (err instanceof Error ? err.message : String(err));
  if (json) console.log(JSON.stringify({ error: message }));
  else console.error(`error: ${message}${err instanceof UsageError ? `\n\nusage: ${command.usage}` : ""}`);
} finally {
  await close();
}
process.exit(code);
