export * from "./accounts.ts";
export * from "./solana.ts";
