import { z } from "zod";

/** The chain environment a deployment serves: read by the control plane and by areas whose defaults follow it. */
export const NETWORK = z
  .enum(["testnet", "mainnet"])
  .default("testnet")
  .describe("The chain environment this deployment serves.");
