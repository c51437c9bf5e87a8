export * from "./accounts.ts";
export * from "./gateway.ts";
