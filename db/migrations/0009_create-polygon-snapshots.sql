CREATE TABLE "polygon_log_cursors" (
	"root_chain" text PRIMARY KEY NOT NULL,
	"last_block" bigint NOT NULL
);
--> statement-breakpoint
CREATE TABLE "polygon_snapshots" (
	"validator_share" text NOT NULL,
	"block" bigint NOT NULL,
	"timestamp" bigint NOT NULL,
	"reward_per_share" numeric(78, 0) NOT NULL,
	"exchange_rate" numeric(78, 0) NOT NULL,
	"source" text NOT NULL,
	CONSTRAINT "polygon_snapshots_validator_share_block_pk" PRIMARY KEY("validator_share","block")
);
--> statement-breakpoint
CREATE INDEX "polygon_snapshots_time_idx" ON "polygon_snapshots" USING btree ("validator_share","timestamp");