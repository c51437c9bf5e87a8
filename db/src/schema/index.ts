export * from "./accounts.ts";
export * from "./gateway.ts";
export * from "./provisioning.ts";
export * from "./solana.ts";
