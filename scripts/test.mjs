// `npm test`: install, ensure Postgres and Redis, then typecheck, lint and run every test.
import { ensureInstalled, runTs } from "./lib/bootstrap.mjs";

ensureInstalled();
await runTs("tests/run.ts", process.argv.slice(2));
