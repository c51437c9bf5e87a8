export * from "./accounts.ts";
export * from "./beacon-data.ts";
export * from "./gateway.ts";
export * from "./polygon.ts";
export * from "./provisioning.ts";
export * from "./solana.ts";
export * from "./sui.ts";
export * from "./webhooks.ts";
