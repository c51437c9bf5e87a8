ALTER TABLE "beacon_validator_registrations" DISABLE ROW LEVEL SECURITY;--> statement-breakpoint
DROP TABLE "beacon_validator_registrations" CASCADE;--> statement-breakpoint
DROP INDEX "validators_by_organisation";--> statement-breakpoint
CREATE INDEX "validators_by_organisation" ON "validators" USING btree ("organisation_id","created_at");--> statement-breakpoint
ALTER TABLE "validators" DROP COLUMN "status";--> statement-breakpoint
ALTER TABLE "validators" DROP COLUMN "validator_index";