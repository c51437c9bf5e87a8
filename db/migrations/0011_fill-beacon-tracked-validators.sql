-- beacon-data becomes the one owner of tracked validators (0010): every provisioned validator and every
-- registration moves into beacon_tracked_validators, and the lifecycle status and index the indexer copied
-- onto `validators` are kept in beacon_validators (where the indexer wrote them first) before 0012 drops them.
INSERT INTO "beacon_tracked_validators" ("organisation_id", "pubkey", "source", "fee_recipient", "withdrawal_credentials", "in_org_rollup", "created_at")
SELECT v."organisation_id", v."pubkey", 'provisioned', p."attributes"->>'feeRecipient', v."withdrawal_credentials", true, v."created_at"
FROM "validators" v JOIN "provisions" p ON p."id" = v."provision_id"
ON CONFLICT DO NOTHING;--> statement-breakpoint
INSERT INTO "beacon_tracked_validators" ("organisation_id", "pubkey", "source", "in_org_rollup", "created_at")
SELECT "organisation_id", "pubkey", 'registered', true, "created_at" FROM "beacon_validator_registrations"
ON CONFLICT DO NOTHING;--> statement-breakpoint
INSERT INTO "beacon_validators" ("pubkey", "validator_index", "lifecycle_status")
SELECT "pubkey", "validator_index", "status" FROM "validators" WHERE "status" <> 'CREATED'
ON CONFLICT ("pubkey") DO NOTHING;
