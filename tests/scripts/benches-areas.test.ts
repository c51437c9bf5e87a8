import { isGatewayBench, smokeRuns } from "./benches.ts";

smokeRuns((name) => !isGatewayBench(name), 3);
