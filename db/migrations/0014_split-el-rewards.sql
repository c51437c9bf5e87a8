-- The execution-layer reward in its two parts (issue 23 item 1): builders' payments (MEV-boost) and priority fees,
-- integer Gwei like el_reward_gwei, which is their sum. Rows indexed before this migration keep 0 in both.
ALTER TABLE "beacon_indexer_cursor" ADD COLUMN "first_epoch" integer DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards" ADD COLUMN "mev_reward_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards" ADD COLUMN "priority_fee_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_daily" ADD COLUMN "mev_reward_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_daily" ADD COLUMN "priority_fee_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_org_daily" ADD COLUMN "mev_reward_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_org_daily" ADD COLUMN "priority_fee_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- The index's first epoch as far as the rows tell (validators tracked from the start were read from it; a
-- backfill never went below it); an index with no validator yet starts after its cursor.
UPDATE "beacon_indexer_cursor" SET "first_epoch" = coalesce((SELECT min("indexed_from") FROM "beacon_validators"), "epoch" + 1);--> statement-breakpoint
-- The primary key carries the EL parts too, so the epoch endpoint's sums stay index-only scans (migration 0008).
ALTER TABLE "beacon_rewards" DROP CONSTRAINT "beacon_rewards_validator_index_epoch_pk";--> statement-breakpoint
ALTER TABLE "beacon_rewards" ADD CONSTRAINT "beacon_rewards_validator_index_epoch_pk" PRIMARY KEY ("validator_index", "epoch") INCLUDE ("cl_reward_gwei", "el_reward_gwei", "mev_reward_gwei", "priority_fee_gwei");
