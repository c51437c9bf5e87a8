import { isGatewayBench, smokeRuns } from "./benches.ts";

smokeRuns(isGatewayBench, 3);
