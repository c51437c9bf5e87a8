// `npm start`: install, ensure Postgres and Redis, migrate, seed the demo, start every process.
import { ensureInstalled, runTs } from "./lib/bootstrap.mjs";

ensureInstalled();
await runTs("scripts/up.ts", process.argv.slice(2));
