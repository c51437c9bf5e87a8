ALTER TABLE "beacon_rewards" ADD COLUMN "cl_att_source_gwei" bigint;--> statement-breakpoint
ALTER TABLE "beacon_rewards" ADD COLUMN "cl_att_target_gwei" bigint;--> statement-breakpoint
ALTER TABLE "beacon_rewards" ADD COLUMN "cl_att_head_gwei" bigint;--> statement-breakpoint
ALTER TABLE "beacon_rewards" ADD COLUMN "cl_att_inactivity_gwei" bigint;--> statement-breakpoint
ALTER TABLE "beacon_rewards" ADD COLUMN "cl_sync_committee_gwei" bigint;--> statement-breakpoint
ALTER TABLE "beacon_rewards" ADD COLUMN "cl_proposer_gwei" bigint;--> statement-breakpoint
ALTER TABLE "beacon_rewards" ADD COLUMN "cl_slashing_gwei" bigint;--> statement-breakpoint
ALTER TABLE "beacon_rewards" ADD COLUMN "cl_unexplained_gwei" bigint;--> statement-breakpoint
ALTER TABLE "beacon_rewards_daily" ADD COLUMN "cl_att_source_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_daily" ADD COLUMN "cl_att_target_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_daily" ADD COLUMN "cl_att_head_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_daily" ADD COLUMN "cl_att_inactivity_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_daily" ADD COLUMN "cl_sync_committee_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_daily" ADD COLUMN "cl_proposer_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_daily" ADD COLUMN "cl_slashing_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_daily" ADD COLUMN "cl_unexplained_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_daily" ADD COLUMN "cl_not_broken_down_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_org_daily" ADD COLUMN "cl_att_source_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_org_daily" ADD COLUMN "cl_att_target_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_org_daily" ADD COLUMN "cl_att_head_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_org_daily" ADD COLUMN "cl_att_inactivity_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_org_daily" ADD COLUMN "cl_sync_committee_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_org_daily" ADD COLUMN "cl_proposer_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_org_daily" ADD COLUMN "cl_slashing_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_org_daily" ADD COLUMN "cl_unexplained_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
ALTER TABLE "beacon_rewards_org_daily" ADD COLUMN "cl_not_broken_down_gwei" bigint DEFAULT 0 NOT NULL;--> statement-breakpoint
-- Days indexed before the breakdown existed: their CL reward has no parts.
UPDATE "beacon_rewards_daily" SET "cl_not_broken_down_gwei" = "cl_reward_gwei";--> statement-breakpoint
UPDATE "beacon_rewards_org_daily" SET "cl_not_broken_down_gwei" = "cl_reward_gwei";
