import { defineConfig } from "drizzle-kit";

// Migrations are generated with a descriptive name: `pnpm db:generate --name add-solana-stake-accounts`.
export default defineConfig({
  dialect: "postgresql",
  schema: "./db/src/schema/index.ts",
  out: "./db/migrations",
  casing: "snake_case",
  strict: true,
});
