CREATE TABLE "sui_delegators" (
	"address" text PRIMARY KEY NOT NULL,
	"unstake_cursor" text,
	"synced_at" timestamp (3) with time zone
);
--> statement-breakpoint
CREATE TABLE "sui_epochs" (
	"epoch" integer PRIMARY KEY NOT NULL,
	"start_ms" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "sui_pool_rates" (
	"pool_id" text NOT NULL,
	"epoch" integer NOT NULL,
	"sui_amount" numeric(20, 0) NOT NULL,
	"pool_token_amount" numeric(20, 0) NOT NULL,
	CONSTRAINT "sui_pool_rates_pool_id_epoch_pk" PRIMARY KEY("pool_id","epoch")
);
--> statement-breakpoint
CREATE TABLE "sui_pools" (
	"pool_id" text PRIMARY KEY NOT NULL,
	"validator_address" text NOT NULL,
	"exchange_rates_id" text NOT NULL,
	"activation_epoch" integer NOT NULL,
	"indexed_through_epoch" integer
);
--> statement-breakpoint
CREATE TABLE "sui_stakes" (
	"delegator" text NOT NULL,
	"stake_key" text NOT NULL,
	"source" text NOT NULL,
	"pool_id" text NOT NULL,
	"principal" numeric(20, 0) NOT NULL,
	"activation_epoch" integer NOT NULL,
	"unstake_epoch" integer,
	"reward_amount" numeric(20, 0),
	CONSTRAINT "sui_stakes_delegator_stake_key_pk" PRIMARY KEY("delegator","stake_key")
);
--> statement-breakpoint
CREATE INDEX "sui_stakes_pool_idx" ON "sui_stakes" USING btree ("pool_id");