import { buildScenario } from "./scenario.ts";
import { startSuiDevnet } from "./server.ts";

/**
 * Runnable simulated Sui node for `npm start`: PORT (default 9125), the GraphQL endpoint at /graphql.
 * The chain is the scenario of scenario.ts (the spec sample's delegator and the demo delegator).
 */
const port = Number(process.env.PORT ?? 9125);
const devnet = await startSuiDevnet({ chain: buildScenario().chain, port });
process.stdout.write(`READY ${devnet.url}\n`);
const stop = () => void devnet.close().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
