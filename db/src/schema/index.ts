export * from "./accounts.ts";
export * from "./provisioning.ts";
