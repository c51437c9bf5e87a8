-- Finality of a reward row is its epoch against beacon_indexer_cursor.finalized_epoch: no per-row flag to rewrite.
ALTER TABLE "beacon_rewards" DROP COLUMN "finalized";--> statement-breakpoint
-- The primary key carries the rewards, so sums over a validator's epochs are index-only scans.
ALTER TABLE "beacon_rewards" DROP CONSTRAINT "beacon_rewards_validator_index_epoch_pk";--> statement-breakpoint
ALTER TABLE "beacon_rewards" ADD CONSTRAINT "beacon_rewards_validator_index_epoch_pk" PRIMARY KEY ("validator_index", "epoch") INCLUDE ("cl_reward_gwei", "el_reward_gwei");--> statement-breakpoint
-- Rows rewritten every epoch keep half of each page free, so the update stays on its page (HOT, no index write).
-- (Not beacon_rewards_daily: its rows are updated only on their own day, and half-empty pages would double
-- what the overview reads over a year: 592 against 346 MB, 0.60 against 0.45 s for 10,000 validators.)
ALTER TABLE "beacon_validators" SET (fillfactor = 50);--> statement-breakpoint
-- Validators tracked before the backfill existed are taken as read from the start (nothing to backfill).
ALTER TABLE "beacon_validators" ADD COLUMN "indexed_from" integer;--> statement-breakpoint
UPDATE "beacon_validators" SET "indexed_from" = 0;--> statement-breakpoint
CREATE INDEX "beacon_validators_by_indexed_from" ON "beacon_validators" USING btree ("indexed_from");
--> statement-breakpoint
-- The overview's per-organisation day sums, filled from what is indexed already.
CREATE TABLE "beacon_rewards_org_daily" (
	"organisation_id" text NOT NULL,
	"day" date NOT NULL,
	"cl_reward_gwei" bigint NOT NULL,
	"el_reward_gwei" bigint NOT NULL,
	"balance_sum_gwei" bigint NOT NULL,
	"epochs" integer NOT NULL,
	CONSTRAINT "beacon_rewards_org_daily_organisation_id_day_pk" PRIMARY KEY("organisation_id","day")
);
--> statement-breakpoint
ALTER TABLE "beacon_rewards_org_daily" ADD CONSTRAINT "beacon_rewards_org_daily_organisation_id_organisations_id_fk" FOREIGN KEY ("organisation_id") REFERENCES "public"."organisations"("id") ON DELETE cascade ON UPDATE no action;--> statement-breakpoint
INSERT INTO "beacon_rewards_org_daily" ("organisation_id", "day", "cl_reward_gwei", "el_reward_gwei", "balance_sum_gwei", "epochs")
SELECT m.organisation_id, d.day, sum(d.cl_reward_gwei), sum(d.el_reward_gwei), sum(d.balance_sum_gwei), sum(d.epochs)
FROM (SELECT organisation_id, pubkey FROM validators UNION SELECT organisation_id, pubkey FROM beacon_validator_registrations) m
JOIN beacon_validators b ON b.pubkey = m.pubkey
JOIN beacon_rewards_daily d ON d.validator_index = b.validator_index
GROUP BY 1, 2;
