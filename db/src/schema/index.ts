export * from "./accounts.ts";
export * from "./gateway.ts";
export * from "./solana.ts";
